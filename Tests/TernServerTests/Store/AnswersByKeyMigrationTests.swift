import Foundation
import TernSQLite
import TernTestSupport
import Testing

@testable import TernServer

/// SQLite's `answersByKey` migration: the answers stored before it are the same answers after it,
/// a repeated key is still refused, and the answers still age out.
@Suite struct AnswersByKeyMigrationTests {
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
}
