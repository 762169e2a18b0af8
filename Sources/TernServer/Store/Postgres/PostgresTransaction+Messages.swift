import Foundation
import TernProtocol
import TernSQLite

/// The message query PostgreSQL's dialect needs written its own way; the others are in
/// `Store/SQL/SQLTransaction+Messages.swift`.
extension PostgresTransaction {
    /// In a write, the messages are locked (`FOR UPDATE SKIP LOCKED`): of several nodes fanning out, each
    /// takes a message no other node is fanning out at that moment.
    func messagesFanningOut(limit: Int) throws -> [StoredMessage] {
        try database.query(
            """
            SELECT \(Self.messageColumns) FROM messages WHERE NOT fan_out_done ORDER BY id LIMIT ?
            \(writable ? "FOR UPDATE SKIP LOCKED" : "")
            """, [limit]
        ).map(Self.message)
    }
}
