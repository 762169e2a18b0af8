import Foundation
import TernProtocol
import TernSQLite

extension SQLTransaction {
    func personalFields(subscriptionIds: [Int64], names: [String]) throws -> [Int64: [String: JSONValue]] {
        try personalFields(
            of: subscriptionIds, names: names,
            from: "subscriptions s JOIN profile_fields f ON f.profile_id = s.profile_id", key: "s.id")
    }

    func subscriptionLanguages(subscriptionIds: [Int64]) throws -> [Int64: String] {
        var languages: [Int64: String] = [:]
        for group in RowGroups(subscriptionIds) {
            for row in try database.query(
                """
                SELECT id, language FROM subscriptions
                WHERE id IN (\(RowTexts.values("?", rows: group.count))) AND language IS NOT NULL
                """, Array(group) as [any SQLiteBindable])
            {
                languages[row.requiredInt(0)] = row.string(1)
            }
        }
        return languages
    }

    func personalFields(profileIds: [Int64], names: [String]) throws -> [Int64: [String: JSONValue]] {
        try personalFields(of: profileIds, names: names, from: "profile_fields f", key: "f.profile_id")
    }

    /// The fields named `names` of the rows `ids` (`key`, a column of `from`), by id, in groups.
    private func personalFields(of ids: [Int64], names: [String], from: String, key: String) throws
        -> [Int64: [String: JSONValue]]
    {
        var fields: [Int64: [String: JSONValue]] = [:]
        let named = RowTexts.values("?", rows: names.count)
        for group in RowGroups(ids) {
            for row in try database.query(
                """
                SELECT \(key), f.name, f.value FROM \(from)
                WHERE \(key) IN (\(RowTexts.values("?", rows: group.count))) AND f.name IN (\(named))
                """, Array(group) + names as [any SQLiteBindable])
            {
                fields[row.requiredInt(0), default: [:]][row.requiredString(1)] = try Self.value(row.string(2)) ?? .null
            }
        }
        return fields
    }
}
