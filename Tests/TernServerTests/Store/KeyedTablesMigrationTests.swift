import Foundation
import TernSQLite
import TernTestSupport
import Testing

@testable import TernServer

/// SQLite's `answersByKey` and `profileFieldsByKey` migrations: the rows stored before them are the
/// same rows after them, keys are still unique, and their other queries still find them.
@Suite struct KeyedTablesMigrationTests {
    @Test func answersStoredBeforeTheUpgradeAreKeptAndStillAnswerTheirKeys() async throws {
        let directory = try TemporaryDirectory(prefix: "answers-by-key")
        defer { directory.remove() }
        let store = try await UpgradedStore.open(
            postgres: false, before: SQLiteMigrations.answersByKey, "", directory: directory
        ) { run in
            for (index, key) in ["k-old", "k-new"].enumerated() {
                try run(
                    """
                    INSERT INTO idempotent_answers (scope, key, fingerprint, status, body, created_at)
                    VALUES ('1/r1', ?, 'f', 200, ?, ?)
                    """, [key, Data("{\"n\":\(index)}".utf8), Int64(index * 1_000)])
            }
        }
        #expect(
            try await store.read { try $0.storedAnswer(scope: "1/r1", key: "k-new") }
                == StoredAnswer(fingerprint: "f", status: 200, body: Data("{\"n\":1}".utf8)))
        #expect(try await store.read { try $0.storedAnswer(scope: "2/r1", key: "k-new") } == nil)
        // A key stored once cannot be stored again; another scope's same key can.
        await #expect(throws: StoreError.self) {
            try await store.write {
                try $0.storeAnswer(
                    scope: "1/r1", key: "k-old", answer: StoredAnswer(fingerprint: "g", status: 201, body: Data()),
                    now: 5)
            }
        }
        try await store.write {
            try $0.storeAnswer(
                scope: "2/r1", key: "k-old", answer: StoredAnswer(fingerprint: "g", status: 201, body: Data()), now: 5)
        }
        // Older than 500: the old answer and the one stored at 5; the newer one stays.
        #expect(try await store.write { try $0.deleteAnswers(before: 500) } == 2)
        #expect(try await store.read { try $0.storedAnswer(scope: "1/r1", key: "k-old") } == nil)
        #expect(try await store.read { try $0.storedAnswer(scope: "1/r1", key: "k-new") } != nil)
        await store.close()

        // The rows are the key's B-tree: no rowid table with the key as an index beside it.
        let database = try SQLiteDatabase(path: directory.path("tern.sqlite"))
        let schema = try database.queryFirst("SELECT sql FROM sqlite_master WHERE name = 'idempotent_answers'")
        #expect(schema?.string(0)?.hasSuffix("WITHOUT ROWID") == true)
        let indexes = try database.query(
            "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'idempotent_answers' ORDER BY name"
        ).compactMap { $0.string(0) }
        #expect(indexes == ["idempotent_answers_age"])
    }

    @Test func profileFieldsStoredBeforeTheUpgradeAreKeptAndFoundByValue() async throws {
        let directory = try TemporaryDirectory(prefix: "profile-fields-by-key")
        defer { directory.remove() }
        let store = try await UpgradedStore.open(
            postgres: false, before: SQLiteMigrations.profileFieldsByKey, "", directory: directory
        ) { run in
            try run("INSERT INTO projects (id, name, audience, created_at) VALUES (1, 'p', 'a', 0)", [])
            try run("INSERT INTO profile_databases (id, project_id, name, created_at) VALUES (1, 1, 'd', 0)", [])
            for id in Int64(1)...2 {
                try run(
                    """
                    INSERT INTO profiles (id, public_id, db_id, is_test, skip_triggers, created_at, updated_at)
                    VALUES (?, ?, 1, 0, 0, 0, 0)
                    """, [id, "p-\(id)"])
                try run(
                    "INSERT INTO profile_fields (profile_id, name, value) VALUES (?, 'plan', ?), (?, 'city', '\"Oslo\"')",
                    [id, id == 1 ? "\"gold\"" : "\"free\"", id])
            }
        }
        #expect(try await store.read { try $0.profileFields(profileId: 1) } == ["plan": "gold", "city": "Oslo"])
        #expect(try await store.read { try $0.profiles(dbId: 1, field: "plan", value: "free") }.map(\.id) == [2])
        #expect(try await store.read { try $0.profiles(dbId: 1, field: "city", value: "Oslo") }.map(\.id) == [1, 2])
        // A field set again replaces its value; one set to nothing goes.
        try await store.write {
            try $0.setProfileField(profileId: 1, name: "plan", value: "free")
            try $0.setProfileField(profileId: 1, name: "city", value: nil)
        }
        #expect(try await store.read { try $0.profileFields(profileId: 1) } == ["plan": "free"])
        #expect(try await store.read { try $0.profiles(dbId: 1, field: "plan", value: "free") }.map(\.id) == [1, 2])
        await store.close()

        let database = try SQLiteDatabase(path: directory.path("tern.sqlite"))
        let schema = try database.queryFirst("SELECT sql FROM sqlite_master WHERE name = 'profile_fields'")
        #expect(schema?.string(0)?.hasSuffix("WITHOUT ROWID") == true)
        // A profile deleted takes its fields with it.
        try database.execute("PRAGMA foreign_keys = ON")
        try database.run("DELETE FROM profiles WHERE id = 2")
        #expect(try database.queryFirst("SELECT count(*) FROM profile_fields")?.int(0) == 1)
    }
}
