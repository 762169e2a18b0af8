import Foundation
import TernProtocol
import TernSQLite

/// A resource's device export, a page at a time.
extension SQLTransaction {
    func pushSubscriptions(resourceId: Int64, after cursor: Int64, limit: Int) throws
        -> [(subscription: Subscription, profile: Profile)]
    {
        // Two arms, each a range of `subscriptions_audience_keyset` (resource, pushable, id) read in
        // id order and stopped at the limit; their union's first `limit` ids are the page. The page
        // is in id order alone, so a subscription whose status changes between two pages neither
        // moves behind the cursor nor comes twice; and no index is added that every write of a
        // subscription would have to keep (issue 18 took `subscriptions_push_by_resource` away).
        var page: [(subscription: Subscription, profile: Profile)] = []
        for query in Self.exportPageQueries {
            page += try database.query(query, [resourceId, cursor, limit]).map { row in
                (try Self.subscription(row), Self.profile(row, from: Self.subscriptionColumnCount))
            }
        }
        return Array(page.sorted { $0.subscription.id < $1.subscription.id }.prefix(limit))
    }

    /// ``pushSubscriptions(resourceId:after:limit:)``'s statements, one for each value of
    /// `pushable` (the column is 0 or 1, never null); their plans are tested. Binds: resource,
    /// cursor, limit.
    static var exportPageQueries: [String] {
        [0, 1].map { pushable in
            """
            SELECT \(subscriptionColumns), p.id, p.public_id, p.db_id, p.is_test, p.skip_triggers, p.created_at,
                p.updated_at
            FROM subscriptions s JOIN profiles p ON p.id = s.profile_id
            WHERE s.resource_id = ? AND s.pushable = \(pushable) AND s.id > ? AND s.channel = 'push'
            ORDER BY s.id LIMIT ?
            """
        }
    }

    func profileFields(profileIds: [Int64]) throws -> [Int64: [String: JSONValue]] {
        var fields: [Int64: [String: JSONValue]] = [:]
        for ids in RowGroups(Array(Set(profileIds)).sorted()) {
            for row in try database.query(
                """
                SELECT profile_id, name, value FROM profile_fields
                WHERE profile_id IN (\(RowTexts.values("?", rows: ids.count)))
                """, Array(ids))
            {
                fields[row.requiredInt(0), default: [:]][row.requiredString(1)] = try Self.value(row.string(2)) ?? .null
            }
        }
        return fields
    }

    func pushSubscriptionCounts(profileIds: [Int64]) throws -> [Int64: Int] {
        var counts: [Int64: Int] = [:]
        for ids in RowGroups(Array(Set(profileIds)).sorted()) {
            for row in try database.query(
                """
                SELECT profile_id, COUNT(*) FROM subscriptions
                WHERE profile_id IN (\(RowTexts.values("?", rows: ids.count))) AND channel = 'push'
                GROUP BY profile_id
                """, Array(ids))
            {
                counts[row.requiredInt(0)] = Int(row.requiredInt(1))
            }
        }
        return counts
    }

    func tags(subscriptionIds: [Int64]) throws -> [Int64: [String: String]] {
        var tags: [Int64: [String: String]] = [:]
        for ids in RowGroups(Array(Set(subscriptionIds)).sorted()) {
            for row in try database.query(Self.exportTagsQuery(rows: ids.count), Array(ids)) {
                tags[row.requiredInt(0), default: [:]][row.requiredString(1)] = row.requiredString(2)
            }
        }
        return tags
    }

    /// ``tags(subscriptionIds:)``'s statement for `rows` ids: a range of the tags' primary key
    /// (subscription, name) for each (its plan is tested).
    static func exportTagsQuery(rows: Int) -> String {
        "SELECT subscription_id, name, value FROM subscription_tags "
            + "WHERE subscription_id IN (\(RowTexts.values("?", rows: rows)))"
    }
}
