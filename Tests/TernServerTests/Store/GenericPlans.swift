import TernTestSupport

@testable import TernServer

/// What the plan tests need of PostgreSQL: a migrated schema, and a prepared statement's generic
/// plan (the one a connection keeps after a statement's first few runs) as EXPLAIN prints it.
extension PostgresConnection {
    /// A fresh schema, migrated by a store that is then closed; its URL.
    static func migratedSchema() async throws -> String {
        let url = try PostgresTestDatabase.freshSchemaURL()
        await (try PostgresStore(url: url, poolSize: 1)).close()
        return url
    }

    /// A connection that plans every prepared statement generically, as PostgreSQL does for a
    /// statement after its first few runs.
    static func genericPlanner(url: String) throws -> PostgresConnection {
        let connection = try PostgresConnection(url: url)
        try connection.execute("SET plan_cache_mode = force_generic_plan")
        return connection
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
}
