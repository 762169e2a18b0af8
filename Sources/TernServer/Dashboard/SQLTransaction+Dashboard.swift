import Foundation
import TernProtocol
import TernSQLite

/// The dashboard's read queries, written once for both backends: a parameter that may be null is
/// cast (PostgreSQL cannot tell its type from `? IS NULL`), `is_test` is read bare (true in both
/// dialects) and a `SUM` is cast back to a `BIGINT` (PostgreSQL's is a `numeric`).
extension SQLTransaction {
    func subscriptionCounts() throws -> [SubscriptionCount] {
        try database.query(
            """
            SELECT resource_id, channel, provider, status, COUNT(*) FROM subscriptions
            GROUP BY resource_id, channel, provider, status ORDER BY resource_id, channel, provider, status
            """, []
        ).map { row in
            SubscriptionCount(
                resourceId: row.requiredInt(0), channel: row.requiredString(1), provider: row.requiredString(2),
                status: row.requiredString(3), count: row.requiredInt(4))
        }
    }

    func permissionCounts() throws -> [PermissionCount] {
        // `LIKE` first: a row without the field is only scanned for it, not parsed as JSON (a parse
        // a row is what an overview of a million devices would pay). `_` matches any character,
        // which the parse after it makes exact.
        let reported =
            switch Self.dialect {
            case .sqlite:
                "CASE WHEN json_type(fields, '$._push_permission') = 'text' THEN json_extract(fields, '$._push_permission') END"
            case .postgres:
                "CASE WHEN jsonb_typeof(fields::jsonb -> '_push_permission') = 'string' THEN fields::jsonb ->> '_push_permission' END"
            }
        return try database.query(
            """
            SELECT resource_id, CASE WHEN fields LIKE '%"_push_permission"%' THEN \(reported) END AS permission,
                COUNT(*)
            FROM subscriptions WHERE pushable = 1 GROUP BY 1, 2
            """, []
        ).map { row in
            PermissionCount(resourceId: row.requiredInt(0), permission: row.string(1), count: row.requiredInt(2))
        }
        .sorted { ($0.resourceId, $0.permission ?? "") < ($1.resourceId, $1.permission ?? "") }
    }

    func messageDays(since: Int64, projectId: Int64?) throws -> [MessageDay] {
        try database.query(
            """
            SELECT created_at / 86400000 AS day, COUNT(*), CAST(SUM(total) AS BIGINT) FROM messages
            WHERE created_at >= ? AND (CAST(? AS BIGINT) IS NULL OR project_id = ?)
            GROUP BY day ORDER BY day
            """, [since, projectId, projectId]
        ).map { row in
            MessageDay(
                day: MessageDay.label(dayNumber: row.requiredInt(0)), messages: row.requiredInt(1),
                targeted: row.requiredInt(2))
        }
    }

    func testProfileIds(limit: Int, projectId: Int64?) throws -> [String] {
        try database.query(
            """
            SELECT p.public_id FROM profiles p JOIN profile_databases d ON d.id = p.db_id
            WHERE p.is_test AND (CAST(? AS BIGINT) IS NULL OR d.project_id = ?) ORDER BY p.id LIMIT ?
            """, [projectId, projectId, limit]
        ).map {
            $0.requiredString(0)
        }
    }

    /// A report is stored with the profile of the subscription its delivery went to, and a
    /// subscription never changes profile, so the profile's column finds every report of a push
    /// sent to it. (A second branch through the profile's subscriptions and their deliveries found
    /// the same rows and read every delivery of the table: no index leads with the subscription.)
    /// Read newest first by id until `limit` are found; `--delivery-retention-days` bounds the table.
    func pushEvents(profileId: Int64, limit: Int) throws -> [PushEventRecord] {
        try database.query(
            """
            SELECT id, resource_id, profile_id, message_id, type, time, received_at FROM push_events
            WHERE profile_id = ? ORDER BY id DESC LIMIT ?
            """, [profileId, limit]
        ).map { row in
            PushEventRecord(
                id: row.requiredInt(0), resourceId: row.requiredInt(1), profileId: row.int(2),
                messageId: row.requiredString(3), type: PushEventRequest.Kind(rawValue: row.requiredString(4)) ?? .open,
                time: row.requiredInt(5), receivedAt: row.requiredInt(6))
        }
    }
}

extension MessageDay {
    /// `YYYY-MM-DD` of the UTC day `dayNumber` days after 1970-01-01.
    static func label(dayNumber: Int64) -> String {
        let date = Date(timeIntervalSince1970: TimeInterval(dayNumber) * 86400)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? .current
        let parts = calendar.dateComponents([.year, .month, .day], from: date)
        return String(format: "%04d-%02d-%02d", parts.year ?? 1970, parts.month ?? 1, parts.day ?? 1)
    }
}
