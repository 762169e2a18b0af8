import Foundation

/// How far the open counter has read the devices' reports: every open up to
/// `counted` is counted; `seen` is the highest report id when it last looked, the most the next
/// pass reads up to.
public struct OpenHoursProgress: Sendable, Equatable {
    var counted: Int64
    var seen: Int64
}

/// A device's open as the open counter reads it: its report's id, its person, the time the device
/// said and the time it arrived.
public struct OpenToCount: Sendable, Equatable {
    var id: Int64
    var profileId: Int64?
    var time: Int64
    var receivedAt: Int64
}

/// Each person's opens by hour of day (UTC), for messages sent at each person's usual open time.
public protocol OpenHourQueries {
    /// The counter's progress, locked for this transaction on PostgreSQL (one counter at a time).
    func openHoursProgress() throws -> OpenHoursProgress
    /// Moves the counter's progress on.
    func setOpenHoursProgress(_ progress: OpenHoursProgress) throws
    /// The opens with ids above `after` and at most `upTo`, in id order, at most `limit`.
    func opensToCount(after: Int64, upTo: Int64, limit: Int) throws -> [OpenToCount]
    /// The highest report id (0 for none).
    func lastPushEventId() throws -> Int64
    /// Each person's opens by hour (24 counts), of those that have some.
    func openHourCounts(profileIds: [Int64]) throws -> [Int64: [Int]]
    /// Writes each person's counts, and the hour with the most.
    func setOpenHourCounts(_ counts: [Int64: [Int]]) throws
    /// Each person's usual open hour (0 to 23, UTC), of those that opened a push.
    func usualOpenHours(profileIds: [Int64]) throws -> [Int64: Int]
}
