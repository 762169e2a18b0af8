import Foundation
import TernProtocol
import TernSQLite

extension SQLiteTransaction {
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
            ON CONFLICT (message_id) DO UPDATE SET next_due = MIN(next_due, excluded.next_due)
            """, [messageId, at])
    }

    /// Messages due take turns (see `claimInTurns`); SQLite has one writer, so nothing is locked.
    func claimDeliveries(limit: Int, now: Int64, leaseUntil: Int64) throws -> [ClaimedDelivery] {
        try claimInTurns(limit: limit, now: now, leaseUntil: leaseUntil)
    }

    var claimLocks: (turns: String, deliveries: String) { ("", "") }
}
