import Foundation
import TernProtocol
import TernSQLite

/// The PostgreSQL store's queries, run on the connection of the current transaction. The SQL is
/// SQLite's where the dialects agree (placeholders are `?` in both); values are stored in the same
/// canonical text and JSON forms, so the two backends answer alike.
struct PostgresTransaction: StoreTransaction {
    let database: PostgresConnection
    /// False in a read-only transaction, where rows cannot be locked.
    let writable: Bool
    /// Where claim latency goes.
    let stats: PostgresStats

    /// Inserts one row and returns the id PostgreSQL gave it.
    func insert(_ sql: String, _ parameters: [any SQLiteBindable]) throws -> Int64 {
        guard let id = try database.queryFirst(sql + " RETURNING id", parameters)?.int(0) else {
            throw StoreError.backend("an insert returned no id: \(sql.prefix(60))")
        }
        return id
    }

    /// The first row's first column as an integer (counts, ids).
    func scalar(_ sql: String, _ parameters: [any SQLiteBindable] = []) throws -> Int64 {
        try database.queryFirst(sql, parameters)?.int(0) ?? 0
    }

    static func json<T: Encodable>(_ value: T) throws -> String { try SQLiteTransaction.json(value) }
    static func jsonOptional<T: Encodable>(_ value: T?) throws -> String? { try SQLiteTransaction.jsonOptional(value) }
    static func json(_ value: [String: JSONValue]) -> String { SQLiteTransaction.json(value) }
    static func json(_ value: [String: Bool]) -> String { SQLiteTransaction.json(value) }
    static func json(_ value: JSONValue) -> String { SQLiteTransaction.json(value) }
    static func jsonOptional(_ value: [String: JSONValue]?) -> String? { SQLiteTransaction.jsonOptional(value) }
    static func object(_ text: String?) throws -> [String: JSONValue]? { try SQLiteTransaction.object(text) }
    static func flags(_ text: String?) throws -> [String: Bool]? { try SQLiteTransaction.flags(text) }
    static func value(_ text: String?) throws -> JSONValue? { try SQLiteTransaction.value(text) }
    static func decode<T: Decodable>(_ type: T.Type, _ text: String?) throws -> T? {
        try SQLiteTransaction.decode(type, text)
    }
}
