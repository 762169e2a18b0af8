import Foundation
import TernProtocol
import TernSQLite

extension SQLTransaction {
    func updateDelivery(_ update: DeliveryUpdate, now: Int64) throws -> Bool {
        let dueAt = update.status == .queued ? update.dueAt ?? now : nil
        let changed =
            try database.run(
                """
                UPDATE deliveries SET status = ?, reason = ?, provider_message_id = ?, due_at = ?, updated_at = ?
                WHERE id = ? AND attempts = ? AND status = 'sending'
                """,
                [
                    update.status.rawValue, update.reason, update.providerMessageId, dueAt, now, update.id,
                    update.attempt,
                ]) > 0
        // Queued again (a retry): the message is due again then, maybe before its lease ran out.
        if changed, let dueAt,
            let messageId = try database.queryFirst(
                "SELECT message_id FROM deliveries WHERE id = ?", [update.id])?.int(0)
        {
            try dueAgain(messageId: messageId, at: dueAt)
        }
        return changed
    }

    func nextDeliveryDue() throws -> Int64? {
        try database.queryFirst("SELECT MIN(next_due) FROM delivery_turns", [])?.int(0)
    }

    func deliveryCounts(messageId: Int64) throws -> [DeliveryStatus: Int64] {
        var counts: [DeliveryStatus: Int64] = [:]
        for row in try database.query(
            "SELECT status, COUNT(*) FROM deliveries WHERE message_id = ? GROUP BY status", [messageId])
        {
            if let status = DeliveryStatus(rawValue: row.requiredString(0)) { counts[status] = row.requiredInt(1) }
        }
        return counts
    }

    func failureReasons(messageId: Int64) throws -> [String: Int64] {
        var reasons: [String: Int64] = [:]
        for row in try database.query(
            """
            SELECT reason, COUNT(*) FROM deliveries WHERE message_id = ? AND status = 'failed' GROUP BY reason
            """, [messageId])
        {
            reasons[row.string(0) ?? "unknown", default: 0] += row.requiredInt(1)
        }
        return reasons
    }

    func deliveries(messageId: Int64, afterId: Int64, limit: Int) throws -> [DeliveryRow] {
        try database.query(
            """
            SELECT id, subscription_id, provider, status, attempts, reason, provider_message_id, updated_at
            FROM deliveries WHERE message_id = ? AND id > ? ORDER BY id LIMIT ?
            """, [messageId, afterId, limit]
        ).map { row in
            DeliveryRow(
                id: row.requiredInt(0), subscriptionId: row.requiredInt(1), provider: row.requiredString(2),
                status: DeliveryStatus(rawValue: row.requiredString(3)) ?? .failed,
                attempts: Int(row.requiredInt(4)), reason: row.string(5), providerMessageId: row.string(6),
                updatedAt: row.requiredInt(7))
        }
    }

    func markTokenInvalid(provider: String, token: String, reason: String, since: Int64?, now: Int64) throws -> Bool {
        if let since {
            let newest = try database.queryFirst(
                "SELECT MAX(updated_at) FROM subscriptions WHERE provider = ? AND token = ? AND channel = 'push'",
                [provider, token])?.int(0)
            if let newest, newest > since { return false }
        }
        try database.run(
            """
            INSERT INTO invalid_tokens (provider, token, reason, marked_at) VALUES (?, ?, ?, ?)
            ON CONFLICT (provider, token) DO UPDATE SET reason = excluded.reason, marked_at = excluded.marked_at
            """, [provider, token, reason, now])
        return true
    }

    func pushState(subscriptionId: Int64) throws -> PushState? {
        try database.queryFirst(
            """
            SELECT s.status, s.provider, s.token, s.updated_at, i.marked_at, i.reason
            FROM subscriptions s LEFT JOIN invalid_tokens i ON i.provider = s.provider AND i.token = s.token
            WHERE s.id = ?
            """, [subscriptionId]
        ).map { row in
            PushState(
                status: SubscriptionStatus(rawValue: row.requiredString(0)) ?? .unsubscribed,
                provider: row.requiredString(1), token: row.requiredString(2), updatedAt: row.requiredInt(3),
                invalidMarkedAt: row.int(4), invalidReason: row.string(5))
        }
    }

    func invalidTokenMark(provider: String, token: String) throws -> (markedAt: Int64, reason: String)? {
        try database.queryFirst(
            "SELECT marked_at, reason FROM invalid_tokens WHERE provider = ? AND token = ?", [provider, token]
        ).map { ($0.requiredInt(0), $0.requiredString(1)) }
    }
}

extension SQLTransaction {
    /// A subscription's columns, then its token's invalid mark (column 15).
    private static var candidateColumns: String {
        subscriptionColumns
            + ", (SELECT i.marked_at FROM invalid_tokens i WHERE i.provider = s.provider AND i.token = s.token)"
    }

    func pushCandidates(resourceId: Int64, after cursor: Int64, limit: Int) throws -> [AudienceCandidate] {
        try database.query(
            """
            SELECT \(Self.candidateColumns) FROM subscriptions s
            WHERE s.resource_id = ? AND s.channel = 'push' AND s.id > ? ORDER BY s.id LIMIT ?
            """, [resourceId, cursor, limit]
        ).map(Self.candidate)
    }

    func pushCandidates(profileId: Int64) throws -> [AudienceCandidate] {
        try database.query(
            """
            SELECT \(Self.candidateColumns) FROM subscriptions s
            WHERE s.profile_id = ? AND s.channel = 'push' ORDER BY s.id
            """, [profileId]
        ).map(Self.candidate)
    }

    func pushCandidates(projectId: Int64, provider: String, token: String) throws -> [AudienceCandidate] {
        try database.query(
            """
            SELECT \(Self.candidateColumns) FROM subscriptions s JOIN resources r ON r.id = s.resource_id
            WHERE s.provider = ? AND s.token = ? AND s.channel = 'push' AND r.project_id = ? ORDER BY s.id
            """, [provider, token, projectId]
        ).map(Self.candidate)
    }

    private static func candidate(_ row: Connection.Row) throws -> AudienceCandidate {
        AudienceCandidate(subscription: try subscription(row), invalidMarkedAt: row.int(15))
    }
}
