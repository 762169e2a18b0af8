import Foundation
import TernSQLite

/// ``RecurrenceQueries``, through `messages_recurring` (the messages with a next time only).
extension SQLTransaction {
    func messagesDueToRecur(now: Int64, limit: Int) throws -> [StoredMessage] {
        try database.query(
            """
            SELECT \(Self.messageColumns) FROM messages
            WHERE repeat_next_at IS NOT NULL AND repeat_next_at <= ? AND cancelled_at IS NULL
            ORDER BY repeat_next_at LIMIT ?
            """, [now, limit]
        ).map(Self.message)
    }

    func advanceRecurrence(messageId: Int64, from: Int64, to: Int64?, content: String) throws -> Bool {
        try database.run(
            "UPDATE messages SET repeat_next_at = ? WHERE id = ? AND repeat_next_at = ? AND content = ?",
            [to, messageId, from, content]) > 0
    }

    func stopRecurrence(messageId: Int64) throws {
        try database.run("UPDATE messages SET repeat_next_at = NULL WHERE id = ?", [messageId])
    }
}
