import Foundation
import TernSQLite

/// The embedded store: one SQLite file in WAL mode, one connection owned by an actor that runs on
/// its own thread.
///
/// ```swift
/// let store = try SQLiteStore(path: dataDirectory + "/tern.sqlite")
/// let projects = try await store.read { try $0.projects() }
/// ```
public actor SQLiteStore: Store {
    private let executor: QueueExecutor
    private var database: SQLiteDatabase?
    public let path: String

    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    /// Opens (creating if needed) the file at `path` and brings its schema to the newest version.
    public init(path: String) throws {
        self.path = path
        executor = QueueExecutor(label: "tern.store.sqlite")
        do {
            let database = try SQLiteDatabase(path: path)
            try database.migrate(SQLiteMigrations.all)
            self.database = database
        } catch let error as SQLiteError {
            throw Self.storeError(error)
        }
    }

    /// The schema version of the open file.
    public func schemaVersion() throws -> Int {
        try run { try $0.userVersion }
    }

    public func write<T: Sendable>(_ body: @Sendable (any StoreTransaction) throws -> T) async throws -> T {
        try run { database in
            try database.transaction { try body(SQLiteTransaction(database: database)) }
        }
    }

    public func read<T: Sendable>(_ body: @Sendable (any StoreTransaction) throws -> T) async throws -> T {
        try run { database in
            try database.execute("BEGIN")
            do {
                let result = try body(SQLiteTransaction(database: database))
                try database.execute("COMMIT")
                return result
            } catch {
                try? database.execute("ROLLBACK")
                throw error
            }
        }
    }

    public func isHealthy() async -> Bool {
        (try? run { try $0.queryFirst("SELECT 1")?.int(0) }) == 1
    }

    public func close() async {
        if let database {
            try? database.execute("PRAGMA optimize")
        }
        database = nil
    }

    private func run<T>(_ body: (SQLiteDatabase) throws -> T) throws -> T {
        guard let database else { throw StoreError.closed }
        do {
            return try body(database)
        } catch let error as SQLiteError {
            throw Self.storeError(error)
        }
    }

    static func storeError(_ error: SQLiteError) -> StoreError {
        if error.isBusy { return .busy(error.message) }
        if error.isConstraint { return .conflict(error.message) }
        return .backend(error.description)
    }
}
