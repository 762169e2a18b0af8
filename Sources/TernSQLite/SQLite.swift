import Foundation

#if canImport(SQLite3)
    import SQLite3
#else
    import CSQLite
#endif

/// An error from SQLite, with its result code and message.
public struct SQLiteError: Error, CustomStringConvertible, Sendable {
    public let code: Int32
    public let message: String

    public var description: String { "SQLite error \(code): \(message)" }

    /// True when another connection holds the lock longer than the busy timeout.
    public var isBusy: Bool { code & 0xFF == SQLITE_BUSY || code & 0xFF == SQLITE_LOCKED }
    /// True for a UNIQUE or PRIMARY KEY violation.
    public var isConstraint: Bool { code & 0xFF == SQLITE_CONSTRAINT }
}

/// A value bound to or read from a statement.
public enum SQLiteValue: Sendable, Equatable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)
}

/// Anything that binds as a statement parameter.
public protocol SQLiteBindable: Sendable {
    var sqliteValue: SQLiteValue { get }
}

extension Int: SQLiteBindable { public var sqliteValue: SQLiteValue { .integer(Int64(self)) } }
extension Int64: SQLiteBindable { public var sqliteValue: SQLiteValue { .integer(self) } }
extension Int32: SQLiteBindable { public var sqliteValue: SQLiteValue { .integer(Int64(self)) } }
extension Double: SQLiteBindable { public var sqliteValue: SQLiteValue { .real(self) } }
extension String: SQLiteBindable { public var sqliteValue: SQLiteValue { .text(self) } }
extension Data: SQLiteBindable { public var sqliteValue: SQLiteValue { .blob(self) } }
extension Bool: SQLiteBindable { public var sqliteValue: SQLiteValue { .integer(self ? 1 : 0) } }
extension SQLiteValue: SQLiteBindable { public var sqliteValue: SQLiteValue { self } }
extension Optional: SQLiteBindable where Wrapped: SQLiteBindable {
    public var sqliteValue: SQLiteValue { self?.sqliteValue ?? .null }
}

/// One row of a result, read by column index.
public struct SQLiteRow: Sendable {
    public let values: [SQLiteValue]

    public func int(_ index: Int) -> Int64? {
        switch values[index] {
        case .integer(let value): value
        case .real(let value): Int64(value)
        default: nil
        }
    }

    public func double(_ index: Int) -> Double? {
        switch values[index] {
        case .integer(let value): Double(value)
        case .real(let value): value
        default: nil
        }
    }

    public func string(_ index: Int) -> String? {
        if case .text(let value) = values[index] { value } else { nil }
    }

    public func data(_ index: Int) -> Data? {
        switch values[index] {
        case .blob(let value): value
        case .text(let value): Data(value.utf8)
        default: nil
        }
    }

    public func bool(_ index: Int) -> Bool? { int(index).map { $0 != 0 } }
}

/// One SQLite connection. Not thread-safe: own it from one actor (or one thread at a time).
///
/// ```swift
/// let db = try SQLiteDatabase(path: dir + "/tern.sqlite")
/// try db.execute("CREATE TABLE IF NOT EXISTS t (v TEXT)")
/// try db.run("INSERT INTO t (v) VALUES (?)", ["hello"])
/// let rows = try db.query("SELECT v FROM t")
/// ```
public final class SQLiteDatabase {
    private var handle: OpaquePointer?
    private var statements: [String: OpaquePointer] = [:]
    public let path: String

    /// Opens (creating if needed) the database at `path` in WAL mode with a busy timeout, so that
    /// several connections and several processes can share it.
    public init(path: String, busyTimeoutMilliseconds: Int32 = 10_000, readOnly: Bool = false) throws {
        _ = Self.configured
        self.path = path
        let flags =
            readOnly
            ? SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX
            : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        var db: OpaquePointer?
        let rc = sqlite3_open_v2(path, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            sqlite3_close_v2(db)
            throw SQLiteError(code: rc, message: "\(message) (\(path))")
        }
        handle = db
        sqlite3_busy_timeout(db, busyTimeoutMilliseconds)
        sqlite3_extended_result_codes(db, 1)
        if !readOnly {
            try retryingWhileBusy(milliseconds: busyTimeoutMilliseconds) { try execute("PRAGMA journal_mode=WAL") }
            try execute("PRAGMA synchronous=NORMAL")
        }
        try execute("PRAGMA foreign_keys=ON")
    }

    /// Runs `body` again while it fails with SQLITE_BUSY, for up to `milliseconds`. Switching a new
    /// file to WAL answers SQLITE_BUSY at once, without the busy handler, while another connection
    /// (an app and its extension starting together) is making the same file: one in twenty such
    /// races failed that way (two processes, a fresh file each time).
    private func retryingWhileBusy(milliseconds: Int32, _ body: () throws -> Void) throws {
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(max(0, milliseconds)) * 1_000_000
        while true {
            do {
                return try body()
            } catch let error as SQLiteError where error.isBusy && DispatchTime.now().uptimeNanoseconds < deadline {
                usleep(2_000)
            }
        }
    }

    /// Process-wide settings, once, before the first connection.
    private static let configured: Void = {
        #if !canImport(SQLite3)
            _ = tern_sqlite_disable_memory_statistics()
        #endif
    }()

    deinit {
        for statement in statements.values { sqlite3_finalize(statement) }
        sqlite3_close_v2(handle)
    }

    /// Runs one or more statements that take no parameters.
    public func execute(_ sql: String) throws {
        var error: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(handle, sql, nil, nil, &error)
        if rc != SQLITE_OK {
            let message = error.map { String(cString: $0) } ?? lastMessage
            sqlite3_free(error)
            throw SQLiteError(code: rc, message: message)
        }
    }

    /// Runs one statement with parameters; returns the number of rows it changed.
    @discardableResult
    public func run(_ sql: String, _ parameters: [any SQLiteBindable] = []) throws -> Int {
        let statement = try prepared(sql, parameters)
        defer { sqlite3_reset(statement) }
        let rc = sqlite3_step(statement)
        guard rc == SQLITE_DONE || rc == SQLITE_ROW else { throw error(rc) }
        return Int(sqlite3_changes(handle))
    }

    /// Runs a query and returns every row.
    public func query(_ sql: String, _ parameters: [any SQLiteBindable] = []) throws -> [SQLiteRow] {
        let statement = try prepared(sql, parameters)
        defer { sqlite3_reset(statement) }
        return try rows(statement)
    }

    /// Runs a query prepared for this call only, not kept with the others: for statements whose
    /// text varies with the input (a server's audience filters), so the prepared statements a
    /// connection keeps stay as many as the queries written in code.
    ///
    /// - Parameters:
    ///   - sql: One statement with `?` placeholders.
    ///   - parameters: A value for each placeholder.
    /// - Returns: Every row.
    /// - Throws: ``SQLiteError`` when it cannot be prepared or run.
    public func queryOnce(_ sql: String, _ parameters: [any SQLiteBindable] = []) throws -> [SQLiteRow] {
        var fresh: OpaquePointer?
        let rc = sqlite3_prepare_v2(handle, sql, -1, &fresh, nil)
        guard rc == SQLITE_OK, let statement = fresh else { throw error(rc) }
        defer { sqlite3_finalize(statement) }
        try bind(statement, parameters)
        return try rows(statement)
    }

    /// Runs a query prepared for this call only and hands each row to `body` as it is read, keeping
    /// none: a whole table in constant memory (the server's `tern store copy`).
    ///
    /// - Parameters:
    ///   - sql: One statement with `?` placeholders.
    ///   - parameters: A value for each placeholder.
    ///   - body: Called with each row in turn; an error it throws stops the query and is rethrown.
    /// - Throws: ``SQLiteError`` when the statement cannot be prepared or run, or what `body` threw.
    public func forEachRow(
        _ sql: String, _ parameters: [any SQLiteBindable] = [], _ body: (SQLiteRow) throws -> Void
    ) throws {
        var fresh: OpaquePointer?
        let rc = sqlite3_prepare_v2(handle, sql, -1, &fresh, nil)
        guard rc == SQLITE_OK, let statement = fresh else { throw error(rc) }
        defer { sqlite3_finalize(statement) }
        try bind(statement, parameters)
        let columns = sqlite3_column_count(statement)
        while true {
            let rc = sqlite3_step(statement)
            if rc == SQLITE_DONE { return }
            guard rc == SQLITE_ROW else { throw error(rc) }
            try body(SQLiteRow(values: (0..<columns).map { Self.value(statement, $0) }))
        }
    }

    private func rows(_ statement: OpaquePointer) throws -> [SQLiteRow] {
        var rows: [SQLiteRow] = []
        let columns = sqlite3_column_count(statement)
        while true {
            let rc = sqlite3_step(statement)
            if rc == SQLITE_DONE { break }
            guard rc == SQLITE_ROW else { throw error(rc) }
            var values: [SQLiteValue] = []
            values.reserveCapacity(Int(columns))
            for column in 0..<columns {
                values.append(Self.value(statement, column))
            }
            rows.append(SQLiteRow(values: values))
        }
        return rows
    }

    /// The first row of a query, if any.
    public func queryFirst(_ sql: String, _ parameters: [any SQLiteBindable] = []) throws -> SQLiteRow? {
        try query(sql, parameters).first
    }

    /// The kept statements SQLite has compiled again since they were prepared, each with how many
    /// times. SQLite recompiles a statement after a schema change, and, whenever it is bound anew, one
    /// whose parameter it compared with a partial index's condition while planning (`channel = ?`
    /// against an index `WHERE channel = 'push'`): such a statement is parsed and planned on every
    /// call, as if it were not kept at all. Tests hold the store's queries to none.
    public var recompiledStatements: [String: Int] {
        statements.reduce(into: [:]) { recompiled, entry in
            let count = sqlite3_stmt_status(entry.value, SQLITE_STMTSTATUS_REPREPARE, 0)
            if count > 0 { recompiled[entry.key] = Int(count) }
        }
    }

    /// Flushes the main database file to stable storage, as SQLite does at the end of a checkpoint
    /// that copied the whole log (the VFS's `xSync` on the file this connection has open, found with
    /// `SQLITE_FCNTL_FILE_POINTER`: SQLite's own descriptor, so its POSIX locks are never touched).
    ///
    /// - Throws: ``SQLiteError`` when the file cannot be found or synced.
    public func syncDatabaseFile() throws {
        var file: UnsafeMutablePointer<sqlite3_file>?
        let found = sqlite3_file_control(handle, "main", SQLITE_FCNTL_FILE_POINTER, &file)
        guard found == SQLITE_OK, let file, let sync = file.pointee.pMethods?.pointee.xSync else {
            throw SQLiteError(code: found == SQLITE_OK ? SQLITE_MISUSE : found, message: "no database file to sync")
        }
        let rc = sync(file, SQLITE_SYNC_NORMAL)
        guard rc == SQLITE_OK else { throw SQLiteError(code: rc, message: "syncing \(path) failed") }
    }

    /// True outside a transaction (also after SQLite rolled one back by itself after an error).
    public var isAutocommit: Bool { sqlite3_get_autocommit(handle) != 0 }

    /// The rowid of the last successful insert on this connection.
    public var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// Runs `body` in one transaction (BEGIN IMMEDIATE: the write lock is taken up front, so two
    /// writers never deadlock on an upgrade), committing when it returns, rolling back when it throws.
    public func transaction<T>(_ body: () throws -> T) throws -> T {
        try execute("BEGIN IMMEDIATE")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    /// The schema version kept in `PRAGMA user_version`.
    public var userVersion: Int {
        get throws { Int(try queryFirst("PRAGMA user_version")?.int(0) ?? 0) }
    }

    /// Applies the migrations after the current `user_version`, each in its own transaction.
    /// `migrations[0]` brings the schema to version 1.
    public func migrate(_ migrations: [String]) throws {
        let current = try userVersion
        guard current < migrations.count else { return }
        for version in current..<migrations.count {
            try transaction {
                // Another process may have migrated while we waited for the lock.
                guard try userVersion == version else { return }
                try execute(migrations[version])
                try execute("PRAGMA user_version = \(version + 1)")
            }
        }
    }

    private var lastMessage: String { String(cString: sqlite3_errmsg(handle)) }

    private func error(_ rc: Int32) -> SQLiteError { SQLiteError(code: rc, message: lastMessage) }

    private func prepared(_ sql: String, _ parameters: [any SQLiteBindable]) throws -> OpaquePointer {
        let statement: OpaquePointer
        if let cached = statements[sql] {
            statement = cached
        } else {
            var fresh: OpaquePointer?
            let rc = sqlite3_prepare_v2(handle, sql, -1, &fresh, nil)
            guard rc == SQLITE_OK, let fresh else { throw error(rc) }
            statements[sql] = fresh
            statement = fresh
        }
        try bind(statement, parameters)
        return statement
    }

    /// Binds every parameter of `statement` anew. No `sqlite3_clear_bindings` first: the count must
    /// match, so each value of a kept statement's previous call is replaced (clearing them was 2 %
    /// of the store writer's time under `push/subscribe`).
    private func bind(_ statement: OpaquePointer, _ parameters: [any SQLiteBindable]) throws {
        guard Int(sqlite3_bind_parameter_count(statement)) == parameters.count else {
            throw SQLiteError(
                code: SQLITE_RANGE,
                message: "expected \(sqlite3_bind_parameter_count(statement)) parameters, got \(parameters.count)")
        }
        for (offset, parameter) in parameters.enumerated() {
            let index = Int32(offset + 1)
            let rc: Int32
            switch parameter.sqliteValue {
            case .null: rc = sqlite3_bind_null(statement, index)
            case .integer(let value): rc = sqlite3_bind_int64(statement, index, value)
            case .real(let value): rc = sqlite3_bind_double(statement, index, value)
            case .text(let value): rc = Self.bindText(statement, index, value)
            case .blob(let value):
                rc = value.withUnsafeBytes {
                    sqlite3_bind_blob(statement, index, $0.baseAddress, Int32($0.count), transient)
                }
            }
            guard rc == SQLITE_OK else { throw error(rc) }
        }
    }

    /// Binds a string's UTF-8 bytes with their count. Passed as a C string instead, a short string
    /// (stored inline, with no terminating NUL to point at) was first copied into a new array each
    /// time: 5 % of a fan-out's insert of 64 deliveries, whose provider is such a string. SQLite copies
    /// the bytes (`transient`); an empty string is bound as empty text, not NULL.
    private static func bindText(_ statement: OpaquePointer, _ index: Int32, _ value: String) -> Int32 {
        var value = value
        return value.withUTF8 { bytes in
            guard let base = bytes.baseAddress, !bytes.isEmpty else {
                return sqlite3_bind_text(statement, index, "", 0, transient)
            }
            return base.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
                sqlite3_bind_text64(statement, index, $0, sqlite3_uint64(bytes.count), transient, UInt8(SQLITE_UTF8))
            }
        }
    }

    private static func value(_ statement: OpaquePointer, _ column: Int32) -> SQLiteValue {
        switch sqlite3_column_type(statement, column) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(statement, column))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(statement, column))
        case SQLITE_TEXT: return .text(String(cString: sqlite3_column_text(statement, column)))
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(statement, column))
            guard count > 0, let bytes = sqlite3_column_blob(statement, column) else { return .blob(Data()) }
            return .blob(Data(bytes: bytes, count: count))
        default: return .null
        }
    }
}

#if canImport(SQLite3)
    private let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
#else
    private let transient = tern_sqlite_transient()
#endif
