import Foundation
import TernSQLite

/// ``TriggerQueries``: the waits by their key (message, person) and by `trigger_runs_due`; the
/// standing messages by `messages_triggers`, the partial index of the triggered ones.
extension SQLTransaction {
    func activeTriggers() throws -> [Int64: [TriggerDirectory.Entry]] {
        var byProject: [Int64: [TriggerDirectory.Entry]] = [:]
        for row in try database.query(
            """
            SELECT id, project_id, trigger_event, trigger_cancel_event, trigger_delay FROM messages
            WHERE trigger_event IS NOT NULL AND cancelled_at IS NULL ORDER BY id
            """, [])
        {
            byProject[row.requiredInt(1), default: []].append(
                TriggerDirectory.Entry(
                    messageId: row.requiredInt(0), eventName: row.requiredString(2), cancelEventName: row.string(3),
                    delay: row.int(4) ?? 0))
        }
        return byProject
    }

    func armTrigger(messageId: Int64, profileId: Int64, dueAt: Int64) throws {
        try database.run(
            """
            INSERT INTO trigger_runs (message_id, profile_id, due_at) VALUES (?, ?, ?)
            ON CONFLICT (message_id, profile_id) DO NOTHING
            """, [messageId, profileId, dueAt])
    }

    func disarmTriggers(messageIds: [Int64], profileId: Int64) throws {
        for id in messageIds {
            try database.run("DELETE FROM trigger_runs WHERE message_id = ? AND profile_id = ?", [id, profileId])
        }
    }

    func dueTriggerRuns(now: Int64, limit: Int) throws -> [TriggerRun] {
        try database.query(
            "SELECT message_id, profile_id FROM trigger_runs WHERE due_at <= ? ORDER BY due_at LIMIT ?", [now, limit]
        ).map { TriggerRun(messageId: $0.requiredInt(0), profileId: $0.requiredInt(1)) }
    }

    func takeTriggerRun(messageId: Int64, profileId: Int64, now: Int64) throws -> Bool {
        try database.run(
            "DELETE FROM trigger_runs WHERE message_id = ? AND profile_id = ? AND due_at <= ?",
            [messageId, profileId, now]) > 0
    }

    func removeTriggerRuns(messageId: Int64) throws {
        try database.run("DELETE FROM trigger_runs WHERE message_id = ?", [messageId])
    }
}
