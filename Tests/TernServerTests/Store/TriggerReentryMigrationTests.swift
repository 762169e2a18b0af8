import Foundation
import TernSQLite
import TernTestSupport
import Testing

@testable import TernServer

/// The `triggerReentry` migration on a database written before it, on both backends: the waits
/// running then are still due and taken once, the message reads as one without re-entry, and a
/// person's row may now stay between waits.
@Suite struct TriggerReentryMigrationTests {
    static let backends: [Bool] = [false, true].filter { !$0 || PostgresTestDatabase.url != nil }

    /// Message 1, triggered by `cart`; two people waiting for it, due at 100 and 200.
    static func writeRows(_ run: (String, [any SQLiteBindable]) throws -> Void) throws {
        try run("INSERT INTO projects (id, name, audience, created_at) VALUES (1, 'p', 'a', 0)", [])
        try run("INSERT INTO profile_databases (id, project_id, name, created_at) VALUES (1, 1, 'main', 0)", [])
        for person in 1...2 {
            try run(
                """
                INSERT INTO profiles (id, public_id, db_id, is_test, skip_triggers, created_at, updated_at)
                VALUES (?, ?, 1, FALSE, FALSE, 0, 0)
                """, [Int64(person), "p-\(person)"])
        }
        try run(
            """
            INSERT INTO messages (id, public_id, project_id, content, audience, payload_prefix, payload_suffix,
                push_type, environment, fan_out_cursor, fan_out_done, total, created_at, trigger_event, trigger_delay)
            VALUES (1, 'm-1', 1, '{}', '{}', ?, ?, 'alert', 'production', 0, TRUE, 0, 0, 'cart', 0)
            """, [Data(), Data()])
        try run("INSERT INTO trigger_runs (message_id, profile_id, due_at) VALUES (1, 1, 100), (1, 2, 200)", [])
    }

    @Test(arguments: backends)
    func theWaitsRunningAreTakenOnceAfterTheUpgrade(postgres: Bool) async throws {
        let directory = try TemporaryDirectory(prefix: "trigger-reentry-migration")
        defer { directory.remove() }
        let store = try await UpgradedStore.open(
            postgres: postgres, before: SQLiteMigrations.triggerReentry, PostgresMigrations.triggerReentry,
            directory: directory, writeRows: Self.writeRows)
        let message = try #require(try await store.read { try $0.message(id: 1) })
        #expect(message.triggerEvent == "cart" && message.triggerReentry == nil && message.triggerRoundOf == nil)
        #expect(
            try await store.read { try $0.dueTriggerRuns(now: 300, limit: 10) }
                == [TriggerRun(messageId: 1, profileId: 1), TriggerRun(messageId: 1, profileId: 2)])
        let taken = try await store.write { tx in
            [
                try tx.takeTriggerRun(messageId: 1, profileId: 1, now: 300, keep: false),
                try tx.takeTriggerRun(messageId: 1, profileId: 1, now: 300, keep: false),
                try tx.takeTriggerRun(messageId: 1, profileId: 2, now: 300, keep: true),
            ]
        }
        #expect(taken == [1, nil, 1])
        // Person 2's row stays between waits: the message went to them at 300, so a goal 50 later
        // with a re-entry time of 100 starts nothing, and one at 400 does.
        try await store.write { tx in
            try tx.noteTriggerWent(messageId: 1, profileId: 2, now: 300)
            try tx.armTrigger(messageId: 1, profileId: 2, dueAt: 350, wentBefore: 250)
        }
        #expect(try await store.read { try $0.dueTriggerRuns(now: 1_000, limit: 10) }.isEmpty)
        try await store.write { try $0.armTrigger(messageId: 1, profileId: 2, dueAt: 400, wentBefore: 300) }
        #expect(
            try await store.read { try $0.dueTriggerRuns(now: 1_000, limit: 10) }
                == [TriggerRun(messageId: 1, profileId: 2)])
        #expect(
            try await store.write { try $0.takeTriggerRun(messageId: 1, profileId: 2, now: 1_000, keep: true) } == 2)
        await store.close()
    }
}
