import Foundation
import TernProtocol
import TernSQLite
import Testing

@testable import TernServer

/// A subscription's write names in its `UPDATE` only the indexed columns that change: a database
/// rewrites an index for every column the `SET` list names, whatever its value, and runs every
/// trigger `AFTER UPDATE OF` one of them. Temporary triggers on the writer's connection record
/// which column groups each SDK call named; the row itself is checked after each call.
@Suite struct SubscriptionUpdateColumnsTests {
    @Test func eachWriteNamesOnlyTheIndexedColumnsItChanges() async throws {
        let server = try await InProcessServer()
        defer { Task { await server.finish() } }
        let store = try #require(server.store as? SQLiteStore)
        let subscribed = try await server.sdk(.pushSubscribe, InProcessServer.subscription(token: "t-1"))
        try #require(subscribed.status == 200, "subscribe: \(subscribed.errorText)")
        try await store.write { tx in
            let database = try #require(tx as? SQLiteTransaction).database
            try database.run("CREATE TEMP TABLE named (grp TEXT NOT NULL)")
            for (group, column) in [
                ("address", "token"), ("test", "is_test"), ("pushable", "pushable"), ("builtins", "app_version_key"),
                ("fields", "fields"),
            ] {
                try database.run(
                    """
                    CREATE TEMP TRIGGER named_\(group) AFTER UPDATE OF \(column) ON subscriptions
                    BEGIN INSERT INTO named (grp) VALUES ('\(group)'); END
                    """)
            }
        }

        // Named after each call, then cleared; the row as it stands after the call.
        func named() async throws -> [String] {
            try await store.write { tx in
                let database = try #require(tx as? SQLiteTransaction).database
                let groups = try database.query("SELECT grp FROM named ORDER BY grp").map { $0.string(0) ?? "" }
                try database.run("DELETE FROM named")
                return groups
            }
        }
        func row() async throws -> (token: String, pushable: Int64, appVersionKey: String?) {
            try await store.read { tx in
                let database = try #require(tx as? SQLiteTransaction).database
                let row = try #require(
                    try database.queryFirst(
                        "SELECT token, pushable, app_version_key FROM subscriptions WHERE channel = 'push'"))
                return (row.string(0) ?? "", row.int(1) ?? -1, row.string(2))
            }
        }
        func update(_ body: [String: Any]) async throws {
            let reply = try await server.sdk(.pushUpdate, body.merging(["provider": "ios-apns"]) { old, _ in old })
            try #require(reply.status == 200, "update: \(reply.errorText)")
        }

        // Custom fields that are not built in: no index and no audience trigger is touched.
        try await update(["old_subscription_id": "t-1", "subscription_id": "t-1", "custom_fields": ["tier": "gold"]])
        #expect(try await named() == ["fields"])
        #expect(try await row() == ("t-1", 1, nil))

        // The app version is a built-in column: the audience indexes follow it.
        try await update([
            "old_subscription_id": "t-1", "subscription_id": "t-1", "custom_fields": ["_app_ver": "2.1"],
        ])
        #expect(try await named() == ["builtins", "fields"])
        let versioned = try await row()
        #expect(versioned.appVersionKey != nil && versioned.pushable == 1)

        // A new token moves the address, and only it.
        try await update(["old_subscription_id": "t-1", "subscription_id": "t-2"])
        #expect(try await named() == ["address", "fields"])
        #expect(try await row().token == "t-2")

        // Unsubscribing changes whether the row can be pushed to.
        let unsubscribed = try await server.sdk(
            .pushUnsubscribe, InProcessServer.subscription(token: "t-2", time: 2000, sync: false))
        try #require(unsubscribed.status == 200, "unsubscribe: \(unsubscribed.errorText)")
        #expect(try await named() == ["fields", "pushable"])
        #expect(try await row().pushable == 0)
    }
}
