import Foundation
import TernProtocol
import TernSQLite

extension PostgresTransaction {
    func insertDeliveries(messageId: Int64, targets: [DeliveryTarget], now: Int64) throws -> Int {
        var inserted = 0
        for target in targets {
            inserted += try database.run(
                """
                INSERT INTO deliveries (message_id, subscription_id, provider, token, status, attempts, due_at,
                    updated_at)
                VALUES (?, ?, ?, ?, 'queued', 0, ?, ?)
                ON CONFLICT (message_id, provider, token) DO NOTHING
                """, [messageId, target.subscriptionId, target.provider, target.token, now, now])
        }
        if inserted > 0 { try dueAgain(messageId: messageId, at: now) }
        return inserted
    }

    /// The message has deliveries due at `at` (new, or queued again): it joins the turns, or its
    /// next due time moves earlier. A new message's turn is 0, before every message served since.
    func dueAgain(messageId: Int64, at: Int64) throws {
        try database.run(
            """
            INSERT INTO delivery_turns (message_id, next_due, turn) VALUES (?, ?, 0)
            ON CONFLICT (message_id) DO UPDATE SET next_due = LEAST(delivery_turns.next_due, excluded.next_due)
            """, [messageId, at])
    }

    /// Messages due take turns: the least recently served first, each up to an equal share of
    /// `limit`, then the share of those that ran dry goes to the others; within a message, oldest
    /// due first. The messages served go to the back of the round.
    ///
    /// With several nodes: a claim locks the turns it serves (`FOR UPDATE`), so claims on the same
    /// messages follow one another (each takes milliseconds) and the round stays one round across
    /// nodes; deliveries are taken with `FOR UPDATE SKIP LOCKED`, so no row is ever claimed twice.
    func claimDeliveries(limit: Int, now: Int64, leaseUntil: Int64) throws -> [ClaimedDelivery] {
        let started = ContinuousClock.now
        let claimed = try claimInTurns(limit: limit, now: now, leaseUntil: leaseUntil)
        let elapsed = ContinuousClock.now - started
        stats.recordClaim(
            seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18,
            rows: claimed.count)
        return claimed
    }

    private func claimInTurns(limit: Int, now: Int64, leaseUntil: Int64) throws -> [ClaimedDelivery] {
        let due = try database.query(
            """
            SELECT message_id FROM delivery_turns WHERE next_due <= ? ORDER BY turn, message_id LIMIT 64
            FOR UPDATE
            """, [now]
        ).map { $0.requiredInt(0) }
        guard !due.isEmpty, limit > 0 else { return [] }
        var claimed: [ClaimedDelivery] = []
        var hungry = due
        while claimed.count < limit, !hungry.isEmpty {
            let share = max(1, (limit - claimed.count) / hungry.count)
            var stillHungry: [Int64] = []
            for messageId in hungry where claimed.count < limit {
                let want = min(share, limit - claimed.count)
                let rows = try claim(messageId: messageId, limit: want, now: now, leaseUntil: leaseUntil)
                claimed += rows
                if rows.count == want { stillHungry.append(messageId) }
            }
            hungry = stillHungry
        }
        let last = try database.queryFirst("SELECT MAX(turn) FROM delivery_turns")?.int(0) ?? 0
        for (offset, messageId) in due.enumerated() {
            try served(messageId: messageId, turn: last + 1 + Int64(offset))
        }
        return claimed.sorted { $0.id < $1.id }
    }

    private func claim(messageId: Int64, limit: Int, now: Int64, leaseUntil: Int64) throws -> [ClaimedDelivery] {
        try database.query(
            """
            UPDATE deliveries SET status = 'sending', attempts = attempts + 1, due_at = ?, updated_at = ?
            WHERE id IN (
                SELECT id FROM deliveries
                WHERE message_id = ? AND status IN ('queued', 'sending') AND due_at <= ?
                ORDER BY due_at, id LIMIT ? FOR UPDATE SKIP LOCKED)
            RETURNING id, message_id, subscription_id, provider, token, attempts
            """, [leaseUntil, now, messageId, now, limit]
        ).map { row in
            ClaimedDelivery(
                id: row.requiredInt(0), messageId: row.requiredInt(1), subscriptionId: row.requiredInt(2),
                provider: row.requiredString(3), token: row.requiredString(4), attempt: Int(row.requiredInt(5)))
        }
    }

    /// After a claim: the message moves to the back of the round, due again when its earliest
    /// queued or leased delivery is; with none left it leaves the turns.
    private func served(messageId: Int64, turn: Int64) throws {
        let next = try database.queryFirst(
            "SELECT MIN(due_at) FROM deliveries WHERE message_id = ? AND status IN ('queued', 'sending')",
            [messageId])?.int(0)
        if let next {
            try database.run(
                "UPDATE delivery_turns SET next_due = ?, turn = ? WHERE message_id = ?", [next, turn, messageId])
        } else {
            try database.run("DELETE FROM delivery_turns WHERE message_id = ?", [messageId])
        }
    }
}
