import Foundation
import TernProtocol
import TernSQLite

/// The PostgreSQL store's queries, run on the connection of the current transaction. The SQL is
/// SQLite's where the dialects agree (placeholders are `?` in both); values are stored in the same
/// canonical text and JSON forms, so the two backends answer alike. The queries both backends
/// share are in `Store/SQL`; the files here hold what PostgreSQL's dialect needs written differently.
struct PostgresTransaction: SQLTransaction {
    let database: PostgresConnection
    /// False in a read-only transaction, where rows cannot be locked.
    let writable: Bool
    /// Where claim latency goes.
    let stats: PostgresStats
    static let dialect = SQLDialect.postgres

    /// Inserts one row and returns the id PostgreSQL gave it.
    func insert(_ sql: String, _ parameters: [any SQLiteBindable]) throws -> Int64 {
        guard let id = try database.queryFirst(sql + " RETURNING id", parameters)?.int(0) else {
            throw StoreError.backend("an insert returned no id: \(sql.prefix(60))")
        }
        return id
    }
}
