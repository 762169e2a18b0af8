import TernTestSupport

@testable import TernServer

/// What the plan tests need of PostgreSQL: a migrated schema, and a prepared statement's generic
/// plan (the one every connection runs: ``PostgresConnection/genericPlans``) as EXPLAIN prints it.
extension PostgresConnection {
    /// A fresh schema, migrated by a store that is then closed; its URL.
    static func migratedSchema() async throws -> String {
        let url = try PostgresTestDatabase.freshSchemaURL()
        await (try PostgresStore(url: url, poolSize: 1)).close()
        return url
    }

    /// Prepares one of the store's statements (its `?`s numbered) as `name`.
    func prepare(_ name: String, _ sql: String) throws {
        try execute("PREPARE \(name) AS " + Self.numbered(sql))
    }

    /// The plan of the prepared statement `name` for `arguments` (SQL literals), as EXPLAIN prints it.
    func plan(_ name: String, _ arguments: [String]) throws -> String {
        try query("EXPLAIN EXECUTE \(name)(\(arguments.joined(separator: ", ")))").compactMap { $0.string(0) }
            .joined(separator: "\n")
    }

    /// `table`'s row count as PostgreSQL's statistics have it (0 before its first analysis).
    func estimatedRows(_ table: String) throws -> Int64 {
        try queryFirst(
            "SELECT CAST(GREATEST(reltuples, 0) AS BIGINT) FROM pg_class WHERE oid = CAST(? AS regclass)", [table]
        )?.int(0) ?? -1
    }

    /// Profiles `p<n>` for `numbers`, written past the foreign keys; their count reaches
    /// PostgreSQL's statistics (`pg_stat_user_tables`) as the statement ends.
    func addProfiles(_ numbers: ClosedRange<Int>) throws {
        try execute(
            """
            SELECT pg_stat_force_next_flush();
            SET session_replication_role = replica;
            INSERT INTO profiles (public_id, db_id, is_test, skip_triggers, created_at, updated_at)
                SELECT 'p' || n, 1, false, false, 0, 0
                FROM generate_series(\(numbers.lowerBound), \(numbers.upperBound)) AS n;
            SET session_replication_role = origin
            """)
    }

    /// 30,000 deliveries (subscriptions and tokens 1…30,000) spread evenly over `messages` messages,
    /// written past the foreign keys, then analyzed.
    func addAnalyzedDeliveries(messages: Int) throws {
        try execute(
            """
            SELECT pg_stat_force_next_flush();
            SET session_replication_role = replica;
            INSERT INTO deliveries (message_id, subscription_id, provider, token, created_at)
                SELECT n % \(messages) + 1, n, 'ios-apns', 't' || n, 0 FROM generate_series(1, 30000) AS n;
            SET session_replication_role = origin;
            ANALYZE deliveries
            """)
    }
}
