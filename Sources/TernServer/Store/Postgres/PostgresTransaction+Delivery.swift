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

    /// Messages due take turns (`claimInTurns`), each claim timed for `/metrics`.
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

    var claimLocks: (turns: String, deliveries: String) { ("FOR UPDATE", "FOR UPDATE SKIP LOCKED") }
}
