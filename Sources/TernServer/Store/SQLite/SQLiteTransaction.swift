import Foundation
import TernProtocol
import TernSQLite

/// The SQLite store's queries, run on the connection of the current transaction: those both
/// backends share are in `Store/SQL`, the ones SQLite's dialect needs in `SQLiteTransaction+….swift`.
struct SQLiteTransaction: SQLTransaction {
    let database: SQLiteDatabase
    static let dialect = SQLDialect.sqlite

    func insert(_ sql: String, _ parameters: [any SQLiteBindable]) throws -> Int64 {
        try database.run(sql, parameters)
        return database.lastInsertRowID
    }
}
