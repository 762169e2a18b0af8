import Foundation
import TernProtocol
import TernSQLite

/// The message query SQLite's dialect needs written its own way; the others are in
/// `Store/SQL/SQLTransaction+Messages.swift`.
extension SQLiteTransaction {
    func messagesFanningOut(limit: Int) throws -> [StoredMessage] {
        try database.query(
            "SELECT \(Self.messageColumns) FROM messages WHERE fan_out_done = 0 ORDER BY id LIMIT ?", [limit]
        ).map(Self.message)
    }
}
