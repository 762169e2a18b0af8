import Foundation
import TernSQLite

extension SQLTransaction {
    func openHoursProgress() throws -> OpenHoursProgress {
        let lock = Self.dialect == .postgres ? " FOR UPDATE" : ""
        guard let row = try database.queryFirst("SELECT counted, seen FROM open_hours_progress WHERE id = 1\(lock)", [])
        else { throw StoreError.backend("open_hours_progress has no row: the migration writes it") }
        return OpenHoursProgress(counted: row.requiredInt(0), seen: row.requiredInt(1))
    }

    func setOpenHoursProgress(_ progress: OpenHoursProgress) throws {
        try database.run(
            "UPDATE open_hours_progress SET counted = ?, seen = ? WHERE id = 1", [progress.counted, progress.seen])
    }

    func opensToCount(after: Int64, upTo: Int64, limit: Int) throws -> [OpenToCount] {
        try database.query(
            """
            SELECT id, profile_id, time, received_at FROM push_events
            WHERE id > ? AND id <= ? AND type = 'open' ORDER BY id LIMIT ?
            """, [after, upTo, limit]
        ).map {
            OpenToCount(
                id: $0.requiredInt(0), profileId: $0.int(1), time: $0.requiredInt(2), receivedAt: $0.requiredInt(3))
        }
    }

    func lastPushEventId() throws -> Int64 {
        try scalar("SELECT COALESCE(MAX(id), 0) FROM push_events")
    }

    func openHourCounts(profileIds: [Int64]) throws -> [Int64: [Int]] {
        var counts: [Int64: [Int]] = [:]
        for ids in RowGroups(profileIds) {
            for row in try database.query(
                "SELECT profile_id, counts FROM open_hours WHERE profile_id IN (\(RowTexts.values("?", rows: ids.count)))",
                Array(ids))
            {
                let hours = row.requiredString(1).split(separator: ",").compactMap { Int($0) }
                if hours.count == 24 { counts[row.requiredInt(0)] = hours }
            }
        }
        return counts
    }

    func setOpenHourCounts(_ counts: [Int64: [Int]]) throws {
        // Up to 64 people a statement: on PostgreSQL a round trip each, not one a person.
        let rows = counts.sorted { $0.key < $1.key }
        for group in RowGroups(rows) {
            try database.run(
                """
                INSERT INTO open_hours (profile_id, counts, usual_hour) VALUES \(RowTexts.values("(?, ?, ?)", rows: group.count))
                ON CONFLICT (profile_id) DO UPDATE SET counts = excluded.counts, usual_hour = excluded.usual_hour
                """,
                group.flatMap { profileId, hours -> [any SQLiteBindable] in
                    [
                        profileId, hours.map(String.init).joined(separator: ","),
                        UsualOpenTime.usual(hours.map(Int64.init)),
                    ]
                })
        }
    }

    func usualOpenHours(profileIds: [Int64]) throws -> [Int64: Int] {
        var hours: [Int64: Int] = [:]
        for ids in RowGroups(profileIds) {
            for row in try database.query(
                """
                SELECT profile_id, usual_hour FROM open_hours
                WHERE profile_id IN (\(RowTexts.values("?", rows: ids.count))) AND usual_hour IS NOT NULL
                """, Array(ids))
            {
                hours[row.requiredInt(0)] = Int(row.requiredInt(1))
            }
        }
        return hours
    }
}
