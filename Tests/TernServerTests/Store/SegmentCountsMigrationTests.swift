import Foundation
import TernProtocol
import TernSQLite
import TernTestSupport
import Testing

@testable import TernServer

/// The preview counts' migration on a file written before it: the groups and the tags' copy of
/// their subscription's push rules are filled from the rows already there, so counts right after
/// the upgrade equal what a send reaches.
@Suite struct SegmentCountsMigrationTests {
    @Test func countsRightAfterTheUpgradeEqualTheRows() async throws {
        let directory = try TemporaryDirectory(prefix: "segment-counts-migration")
        defer { directory.remove() }
        let path = directory.path("tern.sqlite")
        let before = try #require(SQLiteMigrations.all.firstIndex(of: SQLiteMigrations.segmentCounts))
        do {
            let database = try SQLiteDatabase(path: path)
            try database.migrate(Array(SQLiteMigrations.all.prefix(before)))
            _ = try database.run("INSERT INTO projects (id, name, audience, created_at) VALUES (1, 'p', 'a', 0)")
            _ = try database.run(
                "INSERT INTO profile_databases (id, project_id, name, created_at) VALUES (1, 1, 'd', 0)")
            _ = try database.run(
                "INSERT INTO resources (id, project_id, db_id, name, channels, rtoken, created_at) VALUES (1, 1, 1, 'r', '[]', 'rt', 0)"
            )
            for index in 0..<9 {
                let id = Int64(index + 1)
                _ = try database.run(
                    "INSERT INTO profiles (id, public_id, db_id, is_test, skip_triggers, created_at, updated_at) VALUES (?, ?, 1, 0, 0, 0, 0)",
                    [id, "p\(index)"])
                // Every third is not pushable (e.g. suspended); sessions 0…2; two versions.
                _ = try database.run(
                    """
                    INSERT INTO subscriptions (id, profile_id, resource_id, channel, provider, token, status, hash_id,
                        fields, cats, client_time, created_at, updated_at, session_count, app_version_key, pushable)
                    VALUES (?, ?, 1, 'push', 'ios-apns', ?, 'subscribed', ?, '{}', '{}', 0, 0, 0, ?, ?, ?)
                    """,
                    [
                        id, id, "t\(index)", "h\(index)", Int64(index % 3), VersionKey.key(index < 5 ? "1.0" : "2.0"),
                        Int64(index % 3 == 2 ? 0 : 1),
                    ])
                if index % 2 == 0 {
                    _ = try database.run(
                        "INSERT INTO subscription_tags (subscription_id, name, value, updated_at) VALUES (?, 'interest', 'travel', 0)",
                        [id])
                }
            }
        }
        let store = try SQLiteStore(path: path)
        #expect(try await store.schemaVersion() == SQLiteMigrations.all.count)
        let scope = AudienceScope(projectId: 1, resourceId: 1)
        for text in [
            nil, #"{"field": "session_count", "op": ">=", "value": 1}"#,
            #"{"field": "app_version", "op": ">=", "value": "2.0"}"#,
            #"{"field": "tags.interest", "op": "=", "value": "travel"}"#,
        ] {
            let filter = try text.map {
                try AudienceExpression.parse(try JSONDecoder().decode(JSONValue.self, from: Data($0.utf8)))
            }
            let (count, reached) = try await store.read { tx in
                (
                    try tx.audienceCount(scope, filter: filter, now: 0),
                    try tx.pushCandidates(scope, filter: filter, now: 0, after: 0, limit: 100).count
                )
            }
            #expect(count == Int64(reached) && reached > 0, "\(text ?? "everyone")")
        }
        await store.close()
    }
}
