import Foundation
import TernSQLite
import TernTestSupport
import Testing

@testable import TernServer

/// A store opened on a database written before a migration: the schema up to the migration before
/// it, rows written there by the test, then the store, which applies the rest (and is checked to
/// be at the newest version). For the tests that hold a migration to what it does to old rows.
enum UpgradedStore {
    /// - Parameters:
    ///   - postgres: PostgreSQL (a fresh schema) or SQLite (a file under `directory`).
    ///   - sqlite: The SQLite migration the rows are written before.
    ///   - postgresMigration: The same migration in PostgreSQL's list.
    ///   - writeRows: Writes the old rows with the function it is given (a statement, its values).
    static func open(
        postgres: Bool, before sqlite: String, _ postgresMigration: String, directory: TemporaryDirectory,
        writeRows: ((String, [any SQLiteBindable]) throws -> Void) throws -> Void
    ) async throws -> any Store {
        if postgres {
            let applied = Array(PostgresMigrations.all.prefix { $0 != postgresMigration })
            let url = try PostgresTestDatabase.freshSchemaURL()
            let connection = try PostgresConnection(url: url)
            try connection.execute(PostgresMigrations.versionTable)
            try connection.run("INSERT INTO tern_schema (version) VALUES (?)", [Int64(applied.count)])
            for migration in applied { try connection.execute(migration) }
            try writeRows { sql, parameters in _ = try connection.run(sql, parameters) }
            let store = try PostgresStore(url: url, poolSize: 2)
            #expect(try await store.schemaVersion() == PostgresMigrations.all.count)
            return store
        }
        let path = directory.path("tern.sqlite")
        do {
            let database = try SQLiteDatabase(path: path)
            try database.migrate(Array(SQLiteMigrations.all.prefix { $0 != sqlite }))
            try writeRows { sql, parameters in _ = try database.run(sql, parameters) }
        }
        let store = try SQLiteStore(path: path)
        #expect(try await store.schemaVersion() == SQLiteMigrations.all.count)
        return store
    }
}
