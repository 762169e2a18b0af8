import Foundation
import TernSQLite

extension SQLTransaction {
    func tags(subscriptionId: Int64) throws -> [String: String] {
        var tags: [String: String] = [:]
        for row in try database.query(
            "SELECT name, value FROM subscription_tags WHERE subscription_id = ?", [subscriptionId])
        {
            tags[row.requiredString(0)] = row.requiredString(1)
        }
        return tags
    }

    func setTags(subscriptionId: Int64, _ tags: [String: String], now: Int64) throws {
        for (key, value) in tags.sorted(by: { $0.key < $1.key }) {
            try database.run(
                """
                INSERT INTO subscription_tags (subscription_id, name, value, updated_at) VALUES (?, ?, ?, ?)
                ON CONFLICT (subscription_id, name) DO UPDATE SET value = excluded.value,
                    updated_at = excluded.updated_at
                """, [subscriptionId, key, value, now])
        }
    }

    func importTags(subscriptionId: Int64, _ tags: [String: String], time: Int64) throws {
        for group in RowGroups(tags.sorted { $0.key < $1.key }) {
            try database.run(
                TagTexts.imports[group.count],
                group.flatMap { [subscriptionId, $0.key, $0.value, time] as [any SQLiteBindable] })
        }
    }

    func removeTags(subscriptionId: Int64, keys: [String]) throws {
        for key in keys {
            try database.run(
                "DELETE FROM subscription_tags WHERE subscription_id = ? AND name = ?", [subscriptionId, key])
        }
    }

    func clearTags(subscriptionId: Int64) throws {
        try database.run("DELETE FROM subscription_tags WHERE subscription_id = ?", [subscriptionId])
    }

    func subscriptionIds(resourceId: Int64, tag key: String, value: String?) throws -> [Int64] {
        let rows: [Connection.Row]
        if let value {
            rows = try database.query(
                """
                SELECT s.id FROM subscription_tags t JOIN subscriptions s ON s.id = t.subscription_id
                WHERE t.name = ? AND t.value = ? AND s.resource_id = ? ORDER BY s.id
                """, [key, value, resourceId])
        } else {
            rows = try database.query(
                """
                SELECT s.id FROM subscription_tags t JOIN subscriptions s ON s.id = t.subscription_id
                WHERE t.name = ? AND s.resource_id = ? ORDER BY s.id
                """, [key, resourceId])
        }
        return rows.map { $0.requiredInt(0) }
    }
}

/// ``SQLTransaction/importTags(subscriptionId:_:time:)``'s statement for each number of tags: a
/// tag set after the row's time keeps its value. Binds: subscription, key, value, time, a row each.
enum TagTexts {
    static let imports = RowTexts { rows in
        """
        INSERT INTO subscription_tags (subscription_id, name, value, updated_at)
        VALUES \(RowTexts.values("(?, ?, ?, ?)", rows: rows))
        ON CONFLICT (subscription_id, name) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at
        WHERE subscription_tags.updated_at <= excluded.updated_at
        """
    }
}
