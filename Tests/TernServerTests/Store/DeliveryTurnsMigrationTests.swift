import Foundation
import TernSQLite
import TernTestSupport
import Testing

@testable import TernServer

/// Schema version 4 (messages take turns in the outbox) on a file written by version 3 with
/// deliveries still waiting: they keep their due times and are claimed after the upgrade.
@Suite struct DeliveryTurnsMigrationTests {
    @Test func deliveriesQueuedBeforeTheUpgradeAreDueAndClaimedAfterIt() async throws {
        let directory = try TemporaryDirectory(prefix: "turns-migration")
        defer { directory.remove() }
        let path = directory.path("tern.sqlite")
        do {
            let database = try SQLiteDatabase(path: path)
            try database.migrate(Array(SQLiteMigrations.all.prefix(3)))
            _ = try database.run("INSERT INTO projects (id, name, audience, created_at) VALUES (1, 'p', 'a', 0)")
            for message in 1...2 {
                _ = try database.run(
                    """
                    INSERT INTO messages (id, public_id, project_id, content, audience, payload_prefix,
                        payload_suffix, push_type, environment, fan_out_cursor, fan_out_done, total, created_at)
                    VALUES (?, ?, 1, '{}', '{}', x'', x'', 'alert', 'production', 0, 1, 2, 0)
                    """, [Int64(message), "m-\(message)"])
            }
            // Message 1: one queued at 100, one leased until 500, one sent. Message 2: one queued at 300.
            let rows: [(Int64, String, String, Int64?)] = [
                (1, "a", "queued", 100), (1, "b", "sending", 500), (1, "c", "sent", nil), (2, "d", "queued", 300),
            ]
            for (message, token, status, due) in rows {
                _ = try database.run(
                    """
                    INSERT INTO deliveries (message_id, subscription_id, provider, token, status, attempts, due_at,
                        updated_at)
                    VALUES (?, 1, 'ios-apns', ?, ?, 0, ?, 0)
                    """, [message, token, status, due])
            }
        }
        let store = try SQLiteStore(path: path)
        #expect(try await store.schemaVersion() == SQLiteMigrations.all.count)
        #expect(try await store.read { try $0.nextDeliveryDue() } == 100)
        let early = try await store.write { try $0.claimDeliveries(limit: 10, now: 200, leaseUntil: 10_000) }
        #expect(early.map(\.token) == ["a"])
        let later = try await store.write { try $0.claimDeliveries(limit: 10, now: 600, leaseUntil: 10_000) }
        #expect(Set(later.map(\.token)) == ["b", "d"], "the lapsed lease and the other message's")
        #expect(try await store.read { try $0.nextDeliveryDue() } == 10_000)
        await store.close()
    }
}
