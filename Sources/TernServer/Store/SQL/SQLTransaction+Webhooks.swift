import Foundation
import TernSQLite

extension SQLTransaction {
    /// `events` as stored: each name between commas, so that `LIKE '%,push.sent,%'` finds one.
    static func storedEvents(_ events: [WebhookEventType]) -> String {
        "," + events.map(\.rawValue).joined(separator: ",") + ","
    }

    static func events(_ stored: String) -> [WebhookEventType] {
        stored.split(separator: ",").compactMap { WebhookEventType(rawValue: String($0)) }
    }

    static func wants(_ type: WebhookEventType) -> String { "%,\(type.rawValue),%" }

    func webhookTypes() throws -> [Int64: Set<WebhookEventType>] {
        var wanted: [Int64: Set<WebhookEventType>] = [:]
        for row in try database.query("SELECT project_id, events FROM webhooks", []) {
            wanted[row.requiredInt(0), default: []].formUnion(Self.events(row.requiredString(1)))
        }
        return wanted
    }

    func insertWebhook(projectId: Int64, url: String, secret: String, events: [WebhookEventType], now: Int64) throws
        -> Int64
    {
        try insert(
            "INSERT INTO webhooks (project_id, url, secret, events, created_at) VALUES (?, ?, ?, ?, ?)",
            [projectId, url, secret, Self.storedEvents(events), now])
    }

    func webhooks(projectId: Int64?) throws -> [StoredWebhook] {
        try database.query(
            """
            SELECT w.id, w.project_id, w.url, w.secret, w.events, w.created_at, w.dropped, w.last_status,
                w.last_error, w.last_attempt_at, w.last_success_at,
                (SELECT COUNT(*) FROM webhook_events e WHERE e.webhook_id = w.id)
            FROM webhooks w WHERE CAST(? AS BIGINT) IS NULL OR w.project_id = ? ORDER BY w.id
            """, [projectId, projectId]
        ).map { row in
            StoredWebhook(
                id: row.requiredInt(0), projectId: row.requiredInt(1), url: row.requiredString(2),
                secret: row.requiredString(3), events: Self.events(row.requiredString(4)),
                createdAt: row.requiredInt(5), pending: row.requiredInt(11), dropped: row.requiredInt(6),
                lastStatus: row.int(7).map { Int($0) }, lastError: row.string(8), lastAttemptAt: row.int(9),
                lastSuccessAt: row.int(10))
        }
    }

    func webhooksDue(now: Int64) throws -> [StoredWebhook] {
        try database.query(
            """
            SELECT w.id, w.project_id, w.url, w.secret, w.events, w.created_at FROM webhooks w
            WHERE EXISTS (SELECT 1 FROM webhook_events e WHERE e.webhook_id = w.id AND e.due_at <= ?) ORDER BY w.id
            """, [now]
        ).map { row in
            StoredWebhook(
                id: row.requiredInt(0), projectId: row.requiredInt(1), url: row.requiredString(2),
                secret: row.requiredString(3), events: Self.events(row.requiredString(4)),
                createdAt: row.requiredInt(5), pending: 0, dropped: 0)
        }
    }

    func deleteWebhook(projectId: Int64, id: Int64) throws -> Bool {
        guard try database.run("DELETE FROM webhooks WHERE id = ? AND project_id = ?", [id, projectId]) > 0 else {
            return false
        }
        try database.run("DELETE FROM webhook_events WHERE webhook_id = ?", [id])
        return true
    }

    func enqueueWebhookEvents(projectId: Int64, type: WebhookEventType, bodies: [String], now: Int64) throws {
        for rows in RowGroups(bodies) {
            // Each body once for each webhook of the project that wants the type: one statement.
            try database.runBeforeNext(
                WebhookTexts.enqueue[rows.count], [now, now] + Array(rows) + [projectId, Self.wants(type)])
        }
    }

    func enqueueWebhookEvent(messageId: String, type: WebhookEventType, body: String, now: Int64) throws {
        try database.runBeforeNext(
            """
            INSERT INTO webhook_events (webhook_id, body, created_at, due_at)
            SELECT w.id, ?, CAST(? AS BIGINT), CAST(? AS BIGINT) FROM messages m
            JOIN webhooks w ON w.project_id = m.project_id
            WHERE m.public_id = ? AND w.events LIKE ?
            """, [body, now, now, messageId, Self.wants(type)])
    }

    func enqueueWebhookEvent(projectId: Int64, webhookId: Int64, body: String, now: Int64) throws -> Bool {
        try database.run(
            """
            INSERT INTO webhook_events (webhook_id, body, created_at, due_at)
            SELECT id, ?, CAST(? AS BIGINT), CAST(? AS BIGINT) FROM webhooks WHERE id = ? AND project_id = ?
            """, [body, now, now, webhookId, projectId]) > 0
    }

    func claimWebhookEvents(webhookId: Int64, limit: Int, now: Int64, leaseUntil: Int64) throws
        -> [ClaimedWebhookEvent]
    {
        let claimed = try database.query(
            """
            SELECT id, body, created_at, attempts FROM webhook_events WHERE webhook_id = ? AND due_at <= ?
            ORDER BY due_at, id LIMIT ? \(claimLocks.deliveries)
            """, [webhookId, now, limit]
        ).map {
            ClaimedWebhookEvent(
                id: $0.requiredInt(0), body: $0.requiredString(1), createdAt: $0.requiredInt(2),
                attempts: Int($0.requiredInt(3)))
        }
        for rows in RowGroups(claimed.map(\.id)) {
            try database.run(
                "UPDATE webhook_events SET due_at = ? WHERE id IN (\(RowTexts.values("?", rows: rows.count)))",
                [leaseUntil] + Array(rows))
        }
        return claimed
    }

    func webhookPosted(webhookId: Int64, eventIds: [Int64], status: Int, now: Int64) throws {
        for rows in RowGroups(eventIds) {
            try database.run(
                "DELETE FROM webhook_events WHERE id IN (\(RowTexts.values("?", rows: rows.count)))", Array(rows))
        }
        try database.run(
            """
            UPDATE webhooks SET last_status = ?, last_error = NULL, last_attempt_at = ?, last_success_at = ?
            WHERE id = ?
            """, [status, now, now, webhookId])
    }

    func webhookFailed(
        webhookId: Int64, eventIds: [Int64], status: Int, error: String, now: Int64, retryAt: Int64,
        givenUpBefore: Int64
    ) throws -> Int {
        var dropped = 0
        for rows in RowGroups(eventIds) {
            let list = RowTexts.values("?", rows: rows.count)
            dropped += try database.run(
                "DELETE FROM webhook_events WHERE id IN (\(list)) AND created_at < ?", Array(rows) + [givenUpBefore])
            try database.run(
                "UPDATE webhook_events SET attempts = attempts + 1, due_at = ? WHERE id IN (\(list))",
                [retryAt] + Array(rows))
        }
        try database.run(
            """
            UPDATE webhooks SET last_status = ?, last_error = ?, last_attempt_at = ?, dropped = dropped + ?
            WHERE id = ?
            """, [status, String(error.prefix(500)), now, dropped, webhookId])
        return dropped
    }
}

/// ``SQLTransaction/enqueueWebhookEvents(projectId:type:bodies:now:)``'s texts: the bodies as a
/// VALUES list (its column is `column1` in both dialects), crossed with the project's webhooks
/// that want the type. Binds: the time twice, the bodies, the project, the type's pattern.
enum WebhookTexts {
    static let enqueue = RowTexts { rows in
        """
        INSERT INTO webhook_events (webhook_id, body, created_at, due_at)
        SELECT w.id, e.column1, CAST(? AS BIGINT), CAST(? AS BIGINT)
        FROM (VALUES \(RowTexts.values("(?)", rows: max(rows, 1)))) AS e, webhooks w
        WHERE w.project_id = ? AND w.events LIKE ?
        """
    }
}
