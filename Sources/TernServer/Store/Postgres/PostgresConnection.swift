import CPostgres
import Foundation
import TernSQLite

/// One libpq connection. Not thread-safe: a ``PostgresSession`` owns it and uses it from its own
/// thread only. Statements are written with SQLite's `?` placeholders (so both backends read alike),
/// turned into `$1…$n` once, prepared once per connection, and run with their parameters in text
/// form (bytes in binary). Results come back as text and are read by ``PostgresRow``.
final class PostgresConnection {
    private var handle: OpaquePointer?
    private var prepared: [String: String] = [:]
    let url: String

    /// Connects; libpq reads the URL (host, port, user, password, database, `sslmode` for TLS).
    init(url: String) throws(PostgresError) {
        self.url = url
        handle = PQconnectdb(url)
        guard let handle, PQstatus(handle) == CONNECTION_OK else {
            let message = handle.map { String(cString: PQerrorMessage($0)) } ?? "out of memory"
            PQfinish(handle)
            self.handle = nil
            throw PostgresError(sqlState: "08001", message: Self.trimmed(message))
        }
        tern_pq_silence_notices(handle)
    }

    deinit { PQfinish(handle) }

    /// False once the server went away (a restart, a dropped socket): the session reconnects.
    var isOpen: Bool { handle.map { PQstatus($0) == CONNECTION_OK } ?? false }

    /// Runs statements without parameters (several may be separated by semicolons).
    func execute(_ sql: String) throws(PostgresError) {
        let result = PQexec(handle, sql)
        defer { PQclear(result) }
        try check(result)
    }

    /// Runs a statement; returns how many rows it changed.
    @discardableResult
    func run(_ sql: String, _ parameters: [any SQLiteBindable] = []) throws(PostgresError) -> Int {
        let result = try executePrepared(sql, parameters)
        defer { PQclear(result) }
        return Int(String(cString: PQcmdTuples(result))) ?? 0
    }

    /// Runs a statement and reads every row.
    func query(_ sql: String, _ parameters: [any SQLiteBindable] = []) throws(PostgresError) -> [PostgresRow] {
        read(try executePrepared(sql, parameters))
    }

    /// Runs a statement without preparing it on the connection (`PQexecParams`): for statements
    /// whose text varies with the input (audience filters), so the statements a connection keeps
    /// prepared stay as many as the queries written in code.
    func queryOnce(_ sql: String, _ parameters: [any SQLiteBindable] = []) throws(PostgresError) -> [PostgresRow] {
        read(try execute(sql, parameters, prepared: false))
    }

    private func read(_ result: OpaquePointer?) -> [PostgresRow] {
        defer { PQclear(result) }
        let rows = Int(PQntuples(result))
        let columns = Int(PQnfields(result))
        var read: [PostgresRow] = []
        read.reserveCapacity(rows)
        for row in 0..<rows {
            var values: [String?] = []
            values.reserveCapacity(columns)
            for column in 0..<columns {
                if PQgetisnull(result, Int32(row), Int32(column)) == 1 {
                    values.append(nil)
                } else {
                    values.append(String(cString: PQgetvalue(result, Int32(row), Int32(column))))
                }
            }
            read.append(PostgresRow(values: values))
        }
        return read
    }

    func queryFirst(_ sql: String, _ parameters: [any SQLiteBindable] = []) throws(PostgresError) -> PostgresRow? {
        try query(sql, parameters).first
    }

    private func executePrepared(_ sql: String, _ parameters: [any SQLiteBindable]) throws(PostgresError)
        -> OpaquePointer?
    {
        try execute(sql, parameters, prepared: true)
    }

    private func execute(_ sql: String, _ parameters: [any SQLiteBindable], prepared: Bool) throws(PostgresError)
        -> OpaquePointer?
    {
        let name = prepared ? try statementName(sql) : ""
        var buffers: [[UInt8]?] = []
        var formats: [Int32] = []
        buffers.reserveCapacity(parameters.count)
        for parameter in parameters {
            switch parameter.sqliteValue {
            case .null:
                buffers.append(nil)
                formats.append(0)
            case .integer(let value):
                buffers.append(Array("\(value)".utf8) + [0])
                formats.append(0)
            case .real(let value):
                buffers.append(Array("\(value)".utf8) + [0])
                formats.append(0)
            case .text(let value):
                buffers.append(Array(value.utf8) + [0])
                formats.append(0)
            case .blob(let value):
                buffers.append(Array(value))
                formats.append(1)
            }
        }
        let lengths = buffers.map { Int32($0?.count ?? 0) }
        let result = Self.withPointers(buffers) { pointers in
            prepared
                ? PQexecPrepared(handle, name, Int32(parameters.count), pointers, lengths, formats, 0)
                : PQexecParams(handle, Self.numbered(sql), Int32(parameters.count), nil, pointers, lengths, formats, 0)
        }
        do {
            try check(result)
        } catch {
            PQclear(result)
            throw error
        }
        return result
    }

    /// The statement's name on this connection, preparing it the first time.
    private func statementName(_ sql: String) throws(PostgresError) -> String {
        if let name = prepared[sql] { return name }
        let name = "s\(prepared.count)"
        let result = PQprepare(handle, name, Self.numbered(sql), 0, nil)
        defer { PQclear(result) }
        try check(result)
        prepared[sql] = name
        return name
    }

    private func check(_ result: OpaquePointer?) throws(PostgresError) {
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY: return
        default:
            guard let result else {
                throw PostgresError(sqlState: "08006", message: Self.trimmed(String(cString: PQerrorMessage(handle))))
            }
            let state = tern_pq_sqlstate(result).map { String(cString: $0) }
            let message = tern_pq_message(result).map { String(cString: $0) }
            let detail = tern_pq_detail(result).map { String(cString: $0) }
            let text = message ?? Self.trimmed(String(cString: PQerrorMessage(handle)))
            // No SQLSTATE: libpq itself failed, which means the connection did.
            throw PostgresError(
                sqlState: state ?? (isOpen ? "XX000" : "08006"), message: detail.map { "\(text) (\($0))" } ?? text)
        }
    }

    /// `?` placeholders become `$1…$n`; a `?` inside a quoted literal stays.
    static func numbered(_ sql: String) -> String {
        var output = ""
        output.reserveCapacity(sql.utf8.count + 16)
        var quoted = false
        var index = 0
        for character in sql {
            if character == "'" { quoted.toggle() }
            if character == "?", !quoted {
                index += 1
                output += "$\(index)"
            } else {
                output.append(character)
            }
        }
        return output
    }

    static func trimmed(_ message: String) -> String {
        message.trimmingCharacters(in: .whitespacesAndNewlines).replacingOccurrences(of: "\n", with: "; ")
    }

    private static func withPointers<R>(
        _ buffers: [[UInt8]?], _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> R
    ) -> R {
        var pointers: [UnsafeMutablePointer<CChar>?] = buffers.map { buffer in
            guard let buffer else { return nil }
            let pointer = UnsafeMutablePointer<CChar>.allocate(capacity: max(buffer.count, 1))
            buffer.withUnsafeBufferPointer { source in
                source.withMemoryRebound(to: CChar.self) { pointer.update(from: $0.baseAddress!, count: buffer.count) }
            }
            return pointer
        }
        defer { pointers.forEach { $0?.deallocate() } }
        return pointers.withUnsafeMutableBufferPointer { mutable in
            mutable.withMemoryRebound(to: UnsafePointer<CChar>?.self) { body($0.baseAddress!) }
        }
    }
}

/// A failure PostgreSQL (or libpq) reported, with its SQLSTATE.
struct PostgresError: Error, CustomStringConvertible {
    let sqlState: String
    let message: String

    var description: String { "PostgreSQL \(sqlState): \(message)" }

    /// The connection is gone or the server is starting or stopping: retrying on a new connection may work.
    var isUnavailable: Bool {
        sqlState.hasPrefix("08") || ["57P01", "57P02", "57P03", "53300"].contains(sqlState)
    }

    /// A deadlock, a serialization failure, or a lock waited for past `lock_timeout`
    /// (`PostgresBatching.lockTimeout`): the statement failed and may run again.
    var isRetryable: Bool { ["40001", "40P01", "55P03"].contains(sqlState) }

    var storeError: StoreError {
        if sqlState.hasPrefix("23") { return .conflict(message) }
        if ["40001", "40P01", "55P03", "57014"].contains(sqlState) { return .busy(message) }
        if isUnavailable { return .busy("the database is unavailable: \(message)") }
        return .backend(description)
    }
}

/// One row of a result in text form, read by column index.
struct PostgresRow {
    let values: [String?]

    func int(_ index: Int) -> Int64? { values[index].flatMap { Int64($0) } }
    func string(_ index: Int) -> String? { values[index] }
    func bool(_ index: Int) -> Bool? { values[index].map { $0 == "t" || $0 == "true" || $0 == "1" } }

    /// A `bytea` column, which text results give in hex (`\x0a1b…`).
    func data(_ index: Int) -> Data? {
        guard let text = values[index] else { return nil }
        let hex = text.utf8.dropFirst(2)
        guard text.hasPrefix("\\x"), hex.count % 2 == 0 else { return Data(text.utf8) }
        var bytes = Data(capacity: hex.count / 2)
        var high: UInt8?
        for character in hex {
            let nibble: UInt8
            switch character {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = character - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = character - UInt8(ascii: "a") + 10
            default: nibble = character - UInt8(ascii: "A") + 10
            }
            if let value = high {
                bytes.append(value << 4 | nibble)
                high = nil
            } else {
                high = nibble
            }
        }
        return bytes
    }
}
