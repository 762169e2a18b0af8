import Foundation
import TernProtocol
import TernSQLite
import TernTestSupport
import Testing

@testable import TernServer

/// The preview counts' migrations on a database written before them, on both backends: the groups,
/// the tags' copy of their subscription's push rules (`segmentCounts`) and of its built-in fields
/// (`segmentRows`) are filled from the rows already there, so counts right after the upgrade equal
/// what a send reaches, and the replaced triggers keep them so after a report.
@Suite struct SegmentCountsMigrationTests {
    /// A backend and the first migration the database has not had yet.
    struct Upgrade: Sendable, CustomTestStringConvertible {
        var postgres: Bool
        var from: String

        var testDescription: String { "\(postgres ? "PostgreSQL" : "SQLite") from before \(from)" }

        /// The migration the database has not had yet, in each backend's list.
        var migration: (sqlite: String, postgres: String) {
            from == "segmentCounts"
                ? (SQLiteMigrations.segmentCounts, PostgresMigrations.segmentCounts)
                : (SQLiteMigrations.segmentRows, PostgresMigrations.segmentRows)
        }
    }

    static let upgrades: [Upgrade] =
        [false, true].filter { !$0 || PostgresTestDatabase.url != nil }.flatMap { postgres in
            ["segmentCounts", "segmentRows"].map { Upgrade(postgres: postgres, from: $0) }
        }

    /// Nine subscriptions: every third not pushable (e.g. suspended); sessions 0…2; two versions;
    /// two languages; every other tagged.
    static func writeRows(_ run: (String, [any SQLiteBindable]) throws -> Void) throws {
        try run("INSERT INTO projects (id, name, audience, created_at) VALUES (1, 'p', 'a', 0)", [])
        try run("INSERT INTO profile_databases (id, project_id, name, created_at) VALUES (1, 1, 'd', 0)", [])
        try run(
            "INSERT INTO resources (id, project_id, db_id, name, channels, rtoken, created_at) VALUES (1, 1, 1, 'r', '[]', 'rt', 0)",
            [])
        for index in 0..<9 {
            let id = Int64(index + 1)
            try run(
                "INSERT INTO profiles (id, public_id, db_id, is_test, skip_triggers, created_at, updated_at) VALUES (?, ?, 1, FALSE, FALSE, 0, 0)",
                [id, "p\(index)"])
            try run(
                """
                INSERT INTO subscriptions (id, profile_id, resource_id, channel, provider, token, status, hash_id,
                    fields, cats, client_time, created_at, updated_at, session_count, app_version_key, language,
                    pushable)
                VALUES (?, ?, 1, 'push', 'ios-apns', ?, 'subscribed', ?, '{}', '{}', 0, 0, 0, ?, ?, ?, ?)
                """,
                [
                    id, id, "t\(index)", "h\(index)", Int64(index % 3), VersionKey.key(index < 5 ? "1.0" : "2.0"),
                    index < 3 ? "fr" : "en", Int64(index % 3 == 2 ? 0 : 1),
                ])
            if index % 2 == 0 {
                try run(
                    "INSERT INTO subscription_tags (subscription_id, name, value, updated_at) VALUES (?, 'interest', 'travel', 0)",
                    [id])
            }
        }
    }

    /// The upgraded store, with the rows written before the upgrade, after checking its version.
    static func upgradedStore(_ upgrade: Upgrade, in directory: TemporaryDirectory) async throws -> any Store {
        try await UpgradedStore.open(
            postgres: upgrade.postgres, before: upgrade.migration.sqlite, upgrade.migration.postgres,
            directory: directory, writeRows: writeRows)
    }

    static let filters: [String?] = [
        nil, #"{"field": "session_count", "op": ">=", "value": 1}"#,
        #"{"field": "app_version", "op": ">=", "value": "2.0"}"#,
        #"{"field": "tags.interest", "op": "=", "value": "travel"}"#,
        // Counted from the tag rows' copy of the built-in fields.
        #"{"and": [{"field": "tags.interest", "op": "=", "value": "travel"}, {"field": "session_count", "op": "<=", "value": 1}, {"field": "language", "op": "=", "value": "en"}]}"#,
    ]

    @Test(arguments: upgrades)
    func countsRightAfterTheUpgradeEqualTheRows(upgrade: Upgrade) async throws {
        let directory = try TemporaryDirectory(prefix: "segment-counts-migration")
        defer { directory.remove() }
        let store = try await Self.upgradedStore(upgrade, in: directory)
        let scope = AudienceScope(projectId: 1, resourceId: 1)
        let filters = try Self.filters.map { text in
            try text.map { try AudienceExpression.parse(try JSONDecoder().decode(JSONValue.self, from: Data($0.utf8))) }
        }
        #expect(FilterSQL.tagRows(try #require(filters[4]), dialect: .sqlite, now: 0) != nil)
        func check(_ moment: String) async throws -> [Int64] {
            var counts: [Int64] = []
            for (filter, text) in zip(filters, Self.filters) {
                let (count, reached, sample) = try await store.read { tx in
                    (
                        try tx.audienceCount(scope, filter: filter, now: 0),
                        try tx.pushCandidates(scope, filter: filter, now: 0, after: 0, limit: 100, reading: .all).count,
                        try tx.audienceSample(scope, filter: filter, now: 0, limit: 100).count
                    )
                }
                #expect(count == Int64(reached) && sample == reached && reached > 0, "\(moment): \(text ?? "everyone")")
                counts.append(count)
            }
            return counts
        }
        let before = try await check("right after the upgrade")
        #expect(before[4] == 2, "subscriptions 5 and 7: tagged, pushable, a session at most, English")
        // A report moves a tagged subscription out of the last filter: the tag rows follow.
        try await store.write { tx in try tx.setSubscriptionFields(id: 7, fields: [BuiltInField.sessionCount.key: 5]) }
        let after = try await check("after a report")
        #expect(after[4] == 1)
        await store.close()
    }
}
