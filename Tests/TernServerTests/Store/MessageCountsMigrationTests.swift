import Foundation
import TernSQLite
import TernTestSupport
import Testing

@testable import TernServer

/// The `messageCounts` migration on a database written before it, on both backends: each message's
/// counts are filled from its delivery rows, and the writes after the upgrade move them on from there.
@Suite struct MessageCountsMigrationTests {
    static let backends: [Bool] = [false, true].filter { !$0 || PostgresTestDatabase.url != nil }

    /// Message 1: two queued, one leased, three sent, two failed, one invalid token; message 2: one sent.
    static func writeRows(_ run: (String, [any SQLiteBindable]) throws -> Void) throws {
        try run("INSERT INTO projects (id, name, audience, created_at) VALUES (1, 'p', 'a', 0)", [])
        for message in 1...2 {
            try run(
                """
                INSERT INTO messages (id, public_id, project_id, content, audience, payload_prefix,
                    payload_suffix, push_type, environment, fan_out_cursor, fan_out_done, total, created_at)
                VALUES (?, ?, 1, '{}', '{}', ?, ?, 'alert', 'production', 0, TRUE, 9, 0)
                """, [Int64(message), "m-\(message)", Data(), Data()])
        }
        let rows: [(Int64, String, Int64?, String?)] = [
            (1, "queued", 100, nil), (1, "queued", 100, nil), (1, "sending", 500, nil), (1, "sent", nil, nil),
            (1, "sent", nil, nil), (1, "sent", nil, nil), (1, "failed", nil, "Gone"), (1, "failed", nil, "Gone"),
            (1, "invalid_token", nil, "BadDeviceToken"), (2, "sent", nil, nil),
        ]
        for (index, (message, status, due, reason)) in rows.enumerated() {
            try run(
                """
                INSERT INTO deliveries (message_id, subscription_id, provider, token, status, attempts, due_at,
                    reason, updated_at)
                VALUES (?, 1, 'ios-apns', ?, ?, 0, ?, ?, 0)
                """, [message, "t\(index)", status, due, reason])
        }
        try run("INSERT INTO delivery_turns (message_id, next_due, turn) VALUES (1, 100, 0)", [])
    }

    @Test(arguments: backends)
    func countsAfterTheUpgradeAreTheRowsAndMoveOnFromThere(postgres: Bool) async throws {
        let directory = try TemporaryDirectory(prefix: "message-counts-migration")
        defer { directory.remove() }
        let store = try await UpgradedStore.open(
            postgres: postgres, before: SQLiteMigrations.messageCounts, PostgresMigrations.messageCounts,
            directory: directory,
            writeRows: Self.writeRows)
        #expect(
            try await store.read { try $0.deliveryCounts(messageId: 1) }
                == [.queued: 2, .sending: 1, .sent: 3, .failed: 2, .invalidToken: 1])
        #expect(try await store.read { try $0.deliveryCounts(messageId: 2) } == [.sent: 1])
        #expect(try await store.read { try $0.failureReasons(messageId: 1) } == ["Gone": 2])

        // The queued two and the lapsed lease are claimed; one is sent, one fails.
        let claimed = try await store.write { try $0.claimDeliveries(limit: 10, now: 600, leaseUntil: 900) }
        try #require(claimed.count == 3)
        let outcomes = [
            DeliveryUpdate(
                id: claimed[0].id, messageId: claimed[0].messageId, attempt: claimed[0].attempt, status: .sent),
            DeliveryUpdate(
                id: claimed[1].id, messageId: claimed[1].messageId, attempt: claimed[1].attempt, status: .failed,
                reason: "Gone"),
        ]
        _ = try await store.write { try $0.updateDeliveries(outcomes, now: 700) }
        #expect(
            try await store.read { try $0.deliveryCounts(messageId: 1) }
                == [.sending: 1, .sent: 4, .failed: 3, .invalidToken: 1])
        #expect(try await store.read { try $0.failureReasons(messageId: 1) } == ["Gone": 3])
        await store.close()
    }
}
