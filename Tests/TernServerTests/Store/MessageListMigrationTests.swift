import Foundation
import TernSQLite
import TernTestSupport
import Testing

@testable import TernServer

/// The `messageList` migration (the list's indexes) on a database written before it, on both
/// backends: the messages there are found by the filters the indexes serve.
@Suite struct MessageListMigrationTests {
    static let backends: [Bool] = [false, true].filter { !$0 || PostgresTestDatabase.url != nil }

    /// Message 1 triggered by `cart`, 2 a one-off sent, 3 a recurring message cancelled, 4 a copy
    /// of it, 5 an A/B test whose winner 6 sent.
    static func writeRows(_ run: (String, [any SQLiteBindable]) throws -> Void) throws {
        try run("INSERT INTO projects (id, name, audience, created_at) VALUES (1, 'p', 'a', 0)", [])
        let rows: [(Int64, String, String)] = [
            (1, "trigger_event = 'cart'", "{}"), (2, "trigger_event = NULL", "{}"),
            (3, "repeat_every = 86400000, cancelled_at = 5", "{}"), (4, "recurring_of = 'm-3'", "{}"),
            (5, "winner_message_id = 'm-6'", "{}"), (6, "trigger_event = NULL", "{}"),
        ]
        for (id, set, content) in rows {
            try run(
                """
                INSERT INTO messages (id, public_id, project_id, content, audience, payload_prefix, payload_suffix,
                    push_type, environment, fan_out_cursor, fan_out_done, total, created_at)
                VALUES (?, ?, 1, ?, '{}', ?, ?, 'alert', 'production', 0, TRUE, 0, ?)
                """, [id, "m-\(id)", content, Data(), Data(), id])
            try run("UPDATE messages SET \(set) WHERE id = ?", [id])
        }
        let versions = try VariantPayload.encode(
            [VariantPayload(percent: 50, prefix: Data(), suffix: Data())], sample: 10)
        try run("UPDATE messages SET variant_payloads = ? WHERE id = 5", [versions])
    }

    @Test(arguments: backends)
    func theMessagesThereAreFoundByTheFiltersAfterTheUpgrade(postgres: Bool) async throws {
        let directory = try TemporaryDirectory(prefix: "message-list-migration")
        defer { directory.remove() }
        let store = try await UpgradedStore.open(
            postgres: postgres, before: SQLiteMigrations.messageList, PostgresMigrations.messageList,
            directory: directory, writeRows: Self.writeRows)
        func ids(_ filter: MessageListFilter) async throws -> [Int64] {
            try await store.read { try $0.messages(matching: filter, beforeId: 0, limit: 10, now: 100) }.map(\.id)
        }
        #expect(try await ids(MessageListFilter(state: .standing)) == [1])
        #expect(try await ids(MessageListFilter(state: .cancelled)) == [3])
        #expect(try await ids(MessageListFilter(kind: .trigger)) == [1])
        #expect(try await ids(MessageListFilter(kind: .recurring)) == [4, 3])
        #expect(try await ids(MessageListFilter(kind: .abTest)) == [6, 5])
        #expect(try await ids(MessageListFilter(kind: .oneOff)) == [2])
        #expect(try await ids(MessageListFilter(state: .done, projectId: 1)) == [6, 5, 4, 2])
    }
}
