import Foundation
import TernProtocol
import TernSQLite

/// The SQLite store's queries, run on the connection of the current transaction.
struct SQLiteTransaction: StoreTransaction {
    let database: SQLiteDatabase

    /// Canonical JSON text (sorted keys): equal values give equal text, so lookups can compare it.
    static func json<T: Encodable>(_ value: T) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = try encoder.encode(value)
        return String(decoding: data, as: UTF8.self)
    }

    static func jsonOptional<T: Encodable>(_ value: T?) throws -> String? {
        guard let value else { return nil }
        return try json(value)
    }

    static func decode<T: Decodable>(_ type: T.Type, _ text: String?) throws -> T? {
        guard let text else { return nil }
        do {
            return try JSONDecoder().decode(type, from: Data(text.utf8))
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
