import Foundation
import TernSQLite
import TernTestSupport
import Testing

@testable import TernServer

/// PostgreSQL's `deliveryKeys` migration on a database written before it: the deliveries keep their
/// ids and pages, the key becomes (message, id), the index that held the same pairs is gone, and
/// new deliveries take ids after the old ones.
@Suite struct DeliveryKeysMigrationTests {
    @Test(.enabled(if: PostgresTestDatabase.url != nil))
    func deliveriesKeepTheirIdsAndPagesUnderTheirNewKey() async throws {
        let url = try PostgresTestDatabase.freshSchemaURL()
        try await offThePool {
            let applied = Array(PostgresMigrations.all.prefix { $0 != PostgresMigrations.deliveryKeys })
            let connection = try PostgresConnection(url: url)
            try connection.execute(PostgresMigrations.versionTable)
            try connection.run("INSERT INTO tern_schema (version) VALUES (?)", [Int64(applied.count)])
            for migration in applied { try connection.execute(migration) }
            // Two messages' deliveries interleaved, past the foreign keys (no message rows).
            try connection.execute(
                """
                SET session_replication_role = replica;
                INSERT INTO deliveries (message_id, subscription_id, provider, token, created_at)
                    SELECT 1 + n % 2, n, 'ios-apns', 't' || n, 0 FROM generate_series(1, 10) AS n;
                """)
        }
        let store = try PostgresStore(url: url, poolSize: 1)
        #expect(try await store.schemaVersion() == PostgresMigrations.all.count)
        let pages = try await store.read { tx in
            [
                try tx.deliveries(messageId: 1, afterId: 0, limit: 10).map(\.id),
                try tx.deliveries(messageId: 2, afterId: 3, limit: 2).map(\.id),
            ]
        }
        #expect(pages == [[2, 4, 6, 8, 10], [5, 7]])
        await store.close()
        let connection = try PostgresConnection(url: url)
        let key = try connection.queryFirst(
            """
            SELECT string_agg(a.attname, ',' ORDER BY k.ordinality) FROM pg_index i
            CROSS JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k (attnum, ordinality)
            JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
            WHERE i.indrelid = CAST('deliveries' AS regclass) AND i.indisprimary
            """)?.string(0)
        #expect(key == "message_id,id")
        let indexes = try connection.query(
            "SELECT indexname FROM pg_indexes WHERE tablename = 'deliveries' AND schemaname = current_schema()"
        ).compactMap { $0.string(0) }
        #expect(Set(indexes) == ["deliveries_pkey", "deliveries_subscription"])
        let next = try connection.queryFirst(
            """
            INSERT INTO deliveries (message_id, subscription_id, provider, token, created_at)
            VALUES (1, 11, 'ios-apns', 't11', 0) RETURNING id
            """)?.int(0)
        #expect(next == 11)
    }
}
