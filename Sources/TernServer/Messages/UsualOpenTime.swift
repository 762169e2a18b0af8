import Foundation
import TernProtocol

/// A message sent at each person's usual open time (`at_usual_open_time`): each device gets it at
/// the first time after the send when the hour of day (UTC) in which its person has opened the
/// most of the project's pushes comes round, so within a day; a person who opened none yet gets it
/// at once. Within the hour, a device's minute comes from its subscription's id, so a million
/// people with the same usual hour are not all due at its first second.
///
/// ```swift
/// // Sent at 06:30 UTC to a person who opens around 19:00 UTC: due at 19:mm today.
/// UsualOpenTime.due(from: sixThirtyUTC, hour: 19, subscriptionId: 42)   // 19:42 UTC
/// UsualOpenTime.due(from: sixThirtyUTC, hour: nil, subscriptionId: 42)  // sixThirtyUTC
/// ```
enum UsualOpenTime {
    static let hour: Int64 = 3_600_000

    /// When the device of `subscriptionId`, whose person usually opens in `hour` (0 to 23, UTC;
    /// nil: not known), gets a message sent at `start` (ms since 1970).
    static func due(from start: Int64, hour usual: Int?, subscriptionId: Int64) -> Int64 {
        guard let usual else { return start }
        let minute = Int64(subscriptionId % 60) * 60_000
        return start + LocalTimeOfDay.mod(Int64(usual) * hour + minute - LocalTimeOfDay.mod(start))
    }

    /// The hour of day (UTC) an open happened in: when the device said, unless its clock is far
    /// from the server's (more than a week behind, or five minutes ahead), then when it arrived.
    static func hourOfOpen(time: Int64, receivedAt: Int64) -> Int {
        let plausible = (receivedAt - 7 * LocalTimeOfDay.day)...(receivedAt + 300_000)
        return Int(LocalTimeOfDay.mod(plausible.contains(time) ? time : receivedAt) / hour)
    }

    /// The hour with the most opens; of hours level, the earliest. Nil when there are none.
    static func usual(_ counts: [Int64]) -> Int? {
        guard let most = counts.max(), most > 0 else { return nil }
        return counts.firstIndex(of: most)
    }
}

/// Counts each person's opens by hour of day (`open_hours`), from the devices' `event/push` opens
/// as they are stored, so that a message sent at each person's usual open time finds it in one
/// read a chunk. It runs on every node; a pass takes the progress row's lock (PostgreSQL), so each
/// open is counted once. It counts opens stored before its last pass (their ids up to the
/// highest seen then): PostgreSQL hands ids out before transactions commit, and one still open at
/// a pass would otherwise be passed over.
struct OpenHourCounter: Sendable {
    let store: any Store
    let logger: Logger
    /// Counts the opens counted (`tern_opens_counted_total`).
    var metrics: Metrics? = nil
    /// How long the loop rests between passes.
    var interval: Duration = .seconds(10)
    /// Opens read a transaction.
    var batch = 5_000

    /// Counts until cancelled.
    func run() async {
        await Periodic.run(every: interval, logger: logger, failure: "counting opens by hour failed") {
            while try await pass() == batch {}
        }
    }

    /// Counts up to ``batch`` opens stored before the last pass; answers how many it read.
    @discardableResult
    func pass() async throws -> Int {
        let counted = try await store.write { [batch] tx in
            var progress = try tx.openHoursProgress()
            let opens = try tx.opensToCount(after: progress.counted, upTo: progress.seen, limit: batch)
            var hours: [Int64: [Int]] = [:]
            for open in opens {
                guard let profileId = open.profileId else { continue }
                hours[profileId, default: []].append(
                    UsualOpenTime.hourOfOpen(time: open.time, receivedAt: open.receivedAt))
            }
            if !hours.isEmpty {
                var counts = try tx.openHourCounts(profileIds: hours.keys.sorted())
                for (profileId, opened) in hours {
                    var row = counts[profileId] ?? Array(repeating: 0, count: 24)
                    for hour in opened { row[hour] += 1 }
                    counts[profileId] = row
                }
                try tx.setOpenHourCounts(counts.filter { hours[$0.key] != nil })
            }
            if opens.count < batch {
                progress.counted = progress.seen
                progress.seen = try tx.lastPushEventId()
            } else {
                progress.counted = opens.last?.id ?? progress.counted
            }
            try tx.setOpenHoursProgress(progress)
            return opens.count
        }
        metrics?.recordOpensCounted(counted)
        return counted
    }
}
