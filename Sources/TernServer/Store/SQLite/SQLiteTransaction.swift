import Foundation
import TernProtocol
import TernSQLite

/// The SQLite store's queries, run on the connection of the current transaction. They are written
/// once for both backends, in `Store/SQL` (and beside their feature, `…/SQLTransaction+….swift`);
/// here is what SQLite does its own way.
struct SQLiteTransaction: SQLTransaction {
    let database: SQLiteDatabase
    static let dialect = SQLDialect.sqlite

    func insert(_ sql: String, _ parameters: [any SQLiteBindable]) throws -> Int64 {
        try database.run(sql, parameters)
        return database.lastInsertRowID
    }

    /// Messages due take turns (see `claimInTurns`); SQLite has one writer, so nothing is locked.
    func claimDeliveries(limit: Int, now: Int64, leaseUntil: Int64) throws -> [ClaimedDelivery] {
        try claimInTurns(limit: limit, now: now, leaseUntil: leaseUntil)
    }

    var claimLocks: (turns: String, deliveries: String) { ("", "") }

    var leaseLock: String { "" }

    var fanOutLock: String { "" }

    var countShard: String { "0" }

    func lockForBootstrap() throws {}

    func lockProfileKey(dbId: Int64, name: String, value: JSONValue) throws -> Bool { false }
}
