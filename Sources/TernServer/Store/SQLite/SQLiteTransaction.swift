import Foundation
import TernProtocol
import TernSQLite

/// The SQLite store's queries, run on the connection of the current transaction.
struct SQLiteTransaction: StoreTransaction {
    let database: SQLiteDatabase

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

    /// The first row's first column as an integer (counts, ids).
    func scalar(_ sql: String, _ parameters: [any SQLiteBindable] = []) throws -> Int64 {
        try database.queryFirst(sql, parameters)?.int(0) ?? 0
    }
}

extension SQLiteRow {
    func requiredInt(_ index: Int) -> Int64 { int(index) ?? 0 }
    func requiredString(_ index: Int) -> String { string(index) ?? "" }
}
