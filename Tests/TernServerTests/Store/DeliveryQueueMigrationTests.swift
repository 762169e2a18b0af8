import Foundation
import TernSQLite
import TernTestSupport
import Testing

@testable import TernServer

/// The `deliveryQueue` migration on a database written before it, on both backends: each delivery's
/// state moves out of its row (into the queue while queued or leased, else its last outcome), a
/// message's page shows what it showed before, and claims and outcomes go on from there.
@Suite struct DeliveryQueueMigrationTests {
    static let backends: [Bool] = [false, true].filter { !$0 || PostgresTestDatabase.url != nil }

    /// Message 1's deliveries in each state a row could have: queued new, queued again after a
    /// retry (its reason), leased with a lapsed lease after a retry, sent (the provider's id),
    /// failed, an invalid token.
    static let rows: [(status: String, attempts: Int64, due: Int64?, reason: String?, providerId: String?)] = [
        ("queued", 0, 100, nil, nil),
        ("queued", 2, 200, "TooManyRequests", nil),
        ("sending", 3, 500, "InternalServerError", nil),
        ("sent", 1, nil, nil, "apns-1"),
        ("failed", 2, nil, "PayloadTooLarge", nil),
        ("invalid_token", 1, nil, "BadDeviceToken", nil),
    ]

    static func writeRows(_ run: (String, [any SQLiteBindable]) throws -> Void) throws {
        try run("INSERT INTO projects (id, name, audience, created_at) VALUES (1, 'p', 'a', 0)", [])
        try run(
            """
            INSERT INTO messages (id, public_id, project_id, content, audience, payload_prefix,
                payload_suffix, push_type, environment, fan_out_cursor, fan_out_done, total, created_at)
            VALUES (1, 'm-1', 1, '{}', '{}', ?, ?, 'alert', 'production', 0, TRUE, 6, 0)
            """, [Data(), Data()])
        for (index, row) in rows.enumerated() {
            try run(
                """
                INSERT INTO deliveries (id, message_id, subscription_id, provider, token, status, attempts, due_at,
                    reason, provider_message_id, updated_at)
                VALUES (?, 1, ?, 'ios-apns', ?, ?, ?, ?, ?, ?, ?)
                """,
                [
                    Int64(index + 1), Int64(index + 1), "t\(index)", row.status, row.attempts, row.due, row.reason,
                    row.providerId, Int64(10 + index),
                ])
        }
        try run("INSERT INTO delivery_turns (message_id, next_due, turn) VALUES (1, 100, 0)", [])
    }

    @Test(arguments: backends)
    func eachDeliverysStateMovesOutOfItsRowAndGoesOnFromThere(postgres: Bool) async throws {
        let directory = try TemporaryDirectory(prefix: "delivery-queue-migration")
        defer { directory.remove() }
        let store = try await UpgradedStore.open(
            postgres: postgres, before: SQLiteMigrations.deliveryQueue, PostgresMigrations.deliveryQueue,
            directory: directory,
            writeRows: Self.writeRows)
        let page = try await store.read { try $0.deliveries(messageId: 1, afterId: 0, limit: 10) }
        #expect(page.map(\.id) == [1, 2, 3, 4, 5, 6])
        #expect(page.map(\.status.rawValue) == Self.rows.map(\.status))
        #expect(page.map { Int64($0.attempts) } == Self.rows.map(\.attempts))
        #expect(page.map(\.reason) == Self.rows.map(\.reason))
        #expect(page.map(\.providerMessageId) == Self.rows.map(\.providerId))
        #expect(page.map(\.updatedAt) == Array(10...15))
        #expect(try await store.read { try $0.failureReasons(messageId: 1) } == ["PayloadTooLarge": 1])

        // Due at 600: the two queued and the lapsed lease, each its next attempt.
        let claimed = try await store.write { try $0.claimDeliveries(limit: 10, now: 600, leaseUntil: 900) }
        #expect(claimed.map(\.id) == [1, 2, 3])
        #expect(claimed.map(\.attempt) == [1, 3, 4])
        #expect(claimed.map(\.token) == ["t0", "t1", "t2"])
        // A stale attempt's outcome changes nothing; the holders' do.
        let stale = DeliveryUpdate(id: 3, messageId: 1, attempt: 3, status: .sent)
        #expect(try await store.write { try $0.updateDeliveries([stale], now: 650) }.isEmpty)
        let outcomes = [
            DeliveryUpdate(id: 1, messageId: 1, attempt: 1, status: .sent, providerMessageId: "apns-2"),
            DeliveryUpdate(id: 2, messageId: 1, attempt: 3, status: .failed, reason: "Unregistered"),
            DeliveryUpdate(id: 3, messageId: 1, attempt: 4, status: .queued, reason: "TooManyRequests", dueAt: 5_000),
        ]
        #expect(try await store.write { try $0.updateDeliveries(outcomes, now: 700) } == [1, 2, 3])
        let after = try await store.read { try $0.deliveries(messageId: 1, afterId: 0, limit: 3) }
        #expect(after.map(\.status) == [.sent, .failed, .queued])
        #expect(after.map(\.attempts) == [1, 3, 4])
        #expect(after.map(\.reason) == [nil, "Unregistered", "TooManyRequests"])
        #expect(after.map(\.providerMessageId) == ["apns-2", nil, nil])
        #expect(
            try await store.read { try $0.failureReasons(messageId: 1) } == ["PayloadTooLarge": 1, "Unregistered": 1])
        // The retry is due again at 5,000, not before.
        #expect(try await store.write { try $0.claimDeliveries(limit: 10, now: 1_000, leaseUntil: 1_300) }.isEmpty)
        let again = try await store.write { try $0.claimDeliveries(limit: 10, now: 5_000, leaseUntil: 5_300) }
        #expect(again.map(\.id) == [3] && again.map(\.attempt) == [5])
        await store.close()
    }
}
