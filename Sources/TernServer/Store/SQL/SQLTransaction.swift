import Foundation
import TernProtocol
import TernSQLite

/// A result row of either backend, read by column index.
protocol SQLRow {
    func int(_ index: Int) -> Int64?
    func string(_ index: Int) -> String?
    func bool(_ index: Int) -> Bool?
    func data(_ index: Int) -> Data?
}

extension SQLRow {
    func requiredInt(_ index: Int) -> Int64 { int(index) ?? 0 }
    func requiredString(_ index: Int) -> String { string(index) ?? "" }
}

/// A backend's connection, as the queries both backends share use it.
protocol SQLConnection {
    associatedtype Row: SQLRow
    /// Runs a statement; returns how many rows it changed.
    @discardableResult func run(_ sql: String, _ parameters: [any SQLiteBindable]) throws -> Int
    func query(_ sql: String, _ parameters: [any SQLiteBindable]) throws -> [Row]
    func queryFirst(_ sql: String, _ parameters: [any SQLiteBindable]) throws -> Row?
    /// Runs a query without keeping it prepared: for text that varies with the input (filters).
    func queryOnce(_ sql: String, _ parameters: [any SQLiteBindable]) throws -> [Row]
    /// Runs a write whose row count nobody reads, as the transaction's next statement: SQLite runs
    /// it now; PostgreSQL sends it with the next statement, in the same round trip, and a failure
    /// then is the batch's, which runs again write by write (``GroupCommit``). Only inside a
    /// store's write, whose batch always sends one more statement (its `COMMIT` at the latest).
    func runBeforeNext(_ sql: String, _ parameters: [any SQLiteBindable]) throws
    /// Runs `body`, a write's statements, unless `sql`, a read, answers rows; then returns those
    /// instead, and nothing `body` did is kept but reads. The same as reading first: SQLite does
    /// (a read costs no round trip); PostgreSQL sends the read with `body`'s first read, in one
    /// round trip (``PostgresConnection/readWithNextRead(_:_:)``).
    func unlessRead<Value>(
        _ sql: String, _ parameters: [any SQLiteBindable], _ body: () throws -> Value
    ) throws -> FoundOrRan<[Row], Value>
    /// While the read of ``unlessRead(_:_:_:)`` waits to go (PostgreSQL, before a statement
    /// carried it), a condition true exactly when it answers no rows, with its parameters: a write
    /// whose `WHERE` adds them changes nothing when the read answers rows, and runs with it in one
    /// round trip (``runCarryingHeldRead(_:_:)``). Nil on SQLite, where the read ran first.
    var heldReadNone: (condition: String, parameters: [any SQLiteBindable])? { get }
    /// Runs a write whose `WHERE` holds ``heldReadNone``; returns how many rows it changed.
    @discardableResult func runCarryingHeldRead(_ sql: String, _ parameters: [any SQLiteBindable]) throws -> Int
}

/// A transaction of either backend (SQLite, PostgreSQL). Every query is written once, in an
/// extension of this protocol (`Store/SQL/SQLTransaction+….swift`, or beside its feature):
/// placeholders are `?` in both, values are stored in the same canonical text and JSON forms,
/// both upsert with `ON CONFLICT` and answer `RETURNING`. Where the dialects' words differ, the
/// difference is named once: a function of `dialect` below (`smaller`, `isFalse`), or a
/// requirement each backend answers (`insert`'s id, the row locks, the bootstrap lock).
protocol SQLTransaction: StoreTransaction {
    associatedtype Connection: SQLConnection
    var database: Connection { get }
    /// Inserts one row and returns the id the backend gave it.
    func insert(_ sql: String, _ parameters: [any SQLiteBindable]) throws -> Int64
    /// The row locks a delivery claim takes, after its select of the turns and of the deliveries:
    /// none on SQLite (one writer); on PostgreSQL, where several nodes claim, `FOR UPDATE` and
    /// `FOR UPDATE SKIP LOCKED`.
    var claimLocks: (turns: String, deliveries: String) { get }
    /// The row lock outcomes take on the fan-out's leases they are recorded under: none on SQLite;
    /// on PostgreSQL `FOR KEY SHARE`, so that outcomes of one lease never wait for one another
    /// while a claim that finds the lease lapsed (`FOR UPDATE SKIP LOCKED`) waits for them, or they
    /// for it.
    var leaseLock: String { get }
    /// The row lock a write's select of the messages fanning out takes: none on SQLite; on
    /// PostgreSQL `FOR UPDATE SKIP LOCKED`, so that of several nodes each fans out its own message.
    var fanOutLock: String { get }
    /// Which of a message's rows of counts (`message_counts`) this transaction moves: 0 on SQLite
    /// (one writer); on PostgreSQL `pg_backend_pid()`, a row per connection, so concurrent
    /// transactions (a fan-out's chunk, claims, outcomes, on one node or several) never wait for
    /// one another's counts, nor lock them in opposite orders to the turns.
    var countShard: String { get }
    /// Taken before bootstrap reads every resource: on PostgreSQL, a write takes a transaction lock,
    /// so of several nodes starting on an empty database one creates the first project and the
    /// others then find it; SQLite has one writer and takes none.
    func lockForBootstrap() throws
    /// The SQL the backend speaks where the two differ (audience filters on JSON fields, and the
    /// words below).
    static var dialect: SQLDialect { get }
}

/// The few words the dialects write differently, each named once.
extension SQLTransaction {
    /// The smaller of two values: `MIN(a, b)` in SQLite, `LEAST(a, b)` in PostgreSQL (whose `MIN`
    /// is an aggregate only).
    static func smaller(_ a: String, _ b: String) -> String {
        switch dialect {
        case .sqlite: "MIN(\(a), \(b))"
        case .postgres: "LEAST(\(a), \(b))"
        }
    }

    /// The larger of two values: `MAX(a, b)` in SQLite, `GREATEST(a, b)` in PostgreSQL.
    static func larger(_ a: String, _ b: String) -> String {
        switch dialect {
        case .sqlite: "MAX(\(a), \(b))"
        case .postgres: "GREATEST(\(a), \(b))"
        }
    }

    /// `column` (a flag) is false, in the words of the backend's partial indexes (SQLite's
    /// `column = 0` on an INTEGER, PostgreSQL's `NOT column` on a BOOLEAN), so that they apply.
    /// A flag that is true reads bare in both: `WHERE column`.
    static func isFalse(_ column: String) -> String {
        switch dialect {
        case .sqlite: "\(column) = 0"
        case .postgres: "NOT \(column)"
        }
    }
}

extension SQLTransaction {
    /// The first row's first column as an integer (counts, ids).
    func scalar(_ sql: String, _ parameters: [any SQLiteBindable] = []) throws -> Int64 {
        try database.queryFirst(sql, parameters)?.int(0) ?? 0
    }

    /// Canonical JSON text (sorted keys): equal values give equal text, so lookups can compare it.
    static func json<T: Encodable>(_ value: T) throws -> String {
        let data = try JSONCoders.encoder.encode(value)
        return String(decoding: data, as: UTF8.self)
    }

    static func jsonOptional<T: Encodable>(_ value: T?) throws -> String? {
        guard let value else { return nil }
        return try json(value)
    }

    /// Fields and other `JSONValue` maps, through the fast codec.
    static func json(_ value: [String: JSONValue]) -> String { StoredJSON.encode(value) }

    static func json(_ value: [String: Bool]) -> String { StoredJSON.encode(value) }

    static func json(_ value: JSONValue) -> String { StoredJSON.encode(value) }

    static func jsonOptional(_ value: [String: JSONValue]?) -> String? { value.map(StoredJSON.encode) }

    static func object(_ text: String?) throws -> [String: JSONValue]? {
        guard let text else { return nil }
        guard case .object(let object)? = StoredJSON.decode(text) else {
            throw StoreError.backend("stored JSON is not an object: \(text.prefix(80))")
        }
        return object
    }

    static func flags(_ text: String?) throws -> [String: Bool]? {
        try object(text)?.compactMapValues(\.boolValue)
    }

    static func value(_ text: String?) throws -> JSONValue? {
        guard let text else { return nil }
        guard let value = StoredJSON.decode(text) else {
            throw StoreError.backend("stored JSON does not parse: \(text.prefix(80))")
        }
        return value
    }

    static func decode<T: Decodable>(_ type: T.Type, _ text: String?) throws -> T? {
        guard let text else { return nil }
        do {
            return try JSONCoders.decoder.decode(type, from: Data(text.utf8))
        } catch {
            throw StoreError.backend("stored JSON does not decode as \(type): \(error)")
        }
    }
}

extension SQLiteRow: SQLRow {}
extension SQLiteDatabase: SQLConnection {
    func runBeforeNext(_ sql: String, _ parameters: [any SQLiteBindable]) throws { try run(sql, parameters) }

    func unlessRead<Value>(
        _ sql: String, _ parameters: [any SQLiteBindable], _ body: () throws -> Value
    ) throws -> FoundOrRan<[SQLiteRow], Value> {
        let rows = try query(sql, parameters)
        return rows.isEmpty ? .ran(try body()) : .found(rows)
    }

    var heldReadNone: (condition: String, parameters: [any SQLiteBindable])? { nil }

    func runCarryingHeldRead(_ sql: String, _ parameters: [any SQLiteBindable]) throws -> Int {
        try run(sql, parameters)
    }
}
extension PostgresRow: SQLRow {}
extension PostgresConnection: SQLConnection {
    func unlessRead<Value>(
        _ sql: String, _ parameters: [any SQLiteBindable], _ body: () throws -> Value
    ) throws -> FoundOrRan<[PostgresRow], Value> {
        try readWithNextRead(sql, parameters)
        let value: Value
        do {
            value = try body()
        } catch {
            // Stopped by the read's rows (or failed, the read then sent or dropped): rows win.
            let rows = (try? takeReadAhead()) ?? []
            if !rows.isEmpty { return .found(rows) }
            throw error
        }
        // `body` ran no statement, or caught the stop: the read is sent now, or was answered.
        let rows = try takeReadAhead()
        return rows.isEmpty ? .ran(value) : .found(rows)
    }
}
