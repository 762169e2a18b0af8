import Foundation
import TernSQLite

/// The SQLite store's reads, on a connection and a thread of their own. WAL lets one writer and
/// readers work at once, and a read sees every transaction committed before it began, so a read
/// issued after a write was answered sees that write. On the writer's actor, a read waited behind
/// the batch in progress and every read made the batches behind it wait: a send's statistics,
/// counted over its deliveries while `tern send` polls them, held up the claims and outcomes of
/// that very send. The connection is query-only: a read that tried to write would fail loudly.
actor SQLiteReader {
    private let executor = QueueExecutor(label: "tern.store.sqlite.read")
    private var database: SQLiteDatabase?

    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    /// Opens a second connection to the file at `path`, which the writer has created and migrated.
    init(path: String) throws {
        let database = try SQLiteDatabase(path: path)
        try database.execute("PRAGMA query_only = ON")
        self.database = database
    }

    /// Runs `body` in one read transaction (a consistent snapshot).
    func read<T: Sendable>(_ body: @Sendable (any StoreTransaction) throws -> T) throws -> T {
        guard let database else { throw StoreError.closed }
        do {
            // Prepared once and kept (run, not execute): every request's authentication reads.
            try database.run("BEGIN")
            do {
                let result = try body(SQLiteTransaction(database: database))
                try database.run("COMMIT")
                return result
            } catch {
                if !database.isAutocommit { try? database.execute("ROLLBACK") }
                throw error
            }
        } catch let error as SQLiteError {
            throw SQLiteStore.storeError(error)
        }
    }

    /// See ``SQLiteDatabase/recompiledStatements``.
    func recompiledStatements() throws -> [String: Int] {
        guard let database else { throw StoreError.closed }
        return database.recompiledStatements
    }

    func close() {
        database = nil
    }
}
