import TernSQLite

/// Group commit on one SQLite connection: `BEGIN IMMEDIATE` takes the write lock once per batch,
/// a named savepoint wraps each write. The statements go through the connection's prepared-statement
/// cache, so a batch parses none of them again.
struct SQLiteBatching: BatchingBackend {
    let database: SQLiteDatabase

    var transaction: any StoreTransaction { SQLiteTransaction(database: database) }

    func beginBatch() throws { try database.run("BEGIN IMMEDIATE") }

    func savepoint() throws { try database.run("SAVEPOINT tern_write") }

    func releaseSavepoint() throws { try database.run("RELEASE tern_write") }

    func rollbackToSavepoint() throws {
        try database.run("ROLLBACK TO tern_write")
        try database.run("RELEASE tern_write")
    }

    func commitBatch() throws { try database.run("COMMIT") }

    func rollbackBatch() {
        // SQLite may already have rolled back (after an I/O error or SQLITE_FULL).
        if !database.isAutocommit { try? database.execute("ROLLBACK") }
    }

    func storeError(_ error: any Error) -> any Error {
        (error as? SQLiteError).map(SQLiteStore.storeError) ?? error
    }
}
