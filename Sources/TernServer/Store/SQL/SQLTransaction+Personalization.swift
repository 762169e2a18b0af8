import Foundation
import TernProtocol
import TernSQLite

extension SQLTransaction {
    func personalFields(subscriptionIds: [Int64], names: [String]) throws -> [Int64: [String: JSONValue]] {
        var fields: [Int64: [String: JSONValue]] = [:]
        let named = RowTexts.values("?", rows: names.count)
        for ids in RowGroups(subscriptionIds) {
            for row in try database.query(
                """
                SELECT s.id, f.name, f.value FROM subscriptions s JOIN profile_fields f ON f.profile_id = s.profile_id
                WHERE s.id IN (\(RowTexts.values("?", rows: ids.count))) AND f.name IN (\(named))
                """, Array(ids) + names as [any SQLiteBindable])
            {
                fields[row.requiredInt(0), default: [:]][row.requiredString(1)] = try Self.value(row.string(2)) ?? .null
            }
        }
        return fields
    }

    func personalFields(profileIds: [Int64], names: [String]) throws -> [Int64: [String: JSONValue]] {
        var fields: [Int64: [String: JSONValue]] = [:]
        let named = RowTexts.values("?", rows: names.count)
        for ids in RowGroups(profileIds) {
            for row in try database.query(
                """
                SELECT profile_id, name, value FROM profile_fields
                WHERE profile_id IN (\(RowTexts.values("?", rows: ids.count))) AND name IN (\(named))
                """, Array(ids) + names as [any SQLiteBindable])
            {
                fields[row.requiredInt(0), default: [:]][row.requiredString(1)] = try Self.value(row.string(2)) ?? .null
            }
        }
        return fields
    }
}
