import Foundation
import TernSQLite

extension SQLTransaction {
    func recentMessageCounts(profileIds: [Int64], since: Int64, excluding messageId: Int64) throws -> [Int64: Int] {
        var counts: [Int64: Int] = [:]
        for ids in RowGroups(profileIds) {
            let marks = Array(repeating: "?", count: ids.count).joined(separator: ", ")
            for row in try database.query(
                """
                SELECT profile_id, COUNT(*) FROM push_frequency
                WHERE profile_id IN (\(marks)) AND at > ? AND message_id <> ? GROUP BY profile_id
                """, Array(ids) + [since, messageId] as [any SQLiteBindable])
            {
                counts[row.requiredInt(0)] = Int(row.requiredInt(1))
            }
        }
        return counts
    }

    func recordMessage(_ messageId: Int64, profileIds: [Int64], at: Int64) throws {
        for ids in RowGroups(profileIds) {
            var parameters: [any SQLiteBindable] = []
            parameters.reserveCapacity(ids.count * 3)
            for id in ids { parameters += [id, messageId, at] as [any SQLiteBindable] }
            try database.run(
                """
                INSERT INTO push_frequency (profile_id, message_id, at)
                VALUES \(RowTexts.values("(?, ?, ?)", rows: ids.count))
                ON CONFLICT (profile_id, message_id) DO NOTHING
                """, parameters)
        }
    }

    func pruneMessageRecords(before: Int64, limit: Int) throws -> Int {
        try database.run(
            """
            DELETE FROM push_frequency WHERE (profile_id, message_id) IN (
                SELECT profile_id, message_id FROM push_frequency WHERE at < ? LIMIT ?)
            """, [before, limit])
    }

    func addSkippedByFrequencyCap(messageId: Int64, count: Int) throws {
        guard count > 0 else { return }
        try database.run(
            """
            INSERT INTO message_skips (message_id, by_preference, by_frequency_cap) VALUES (?, 0, ?)
            ON CONFLICT (message_id) DO UPDATE
                SET by_frequency_cap = message_skips.by_frequency_cap + excluded.by_frequency_cap
            """, [messageId, count])
    }

    func skippedByFrequencyCap(messageId: Int64) throws -> Int64 {
        try database.queryFirst("SELECT by_frequency_cap FROM message_skips WHERE message_id = ?", [messageId])?.int(0)
            ?? 0
    }
}
