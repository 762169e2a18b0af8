import Foundation
import TernSQLite

/// Replacing what a message will send, while nothing of it has gone (`MessageService.edit(publicId:_:idempotency:)`).
public protocol MessageEditQueries {
    /// Writes `message`'s request and what is made of it (payload, versions, times, rhythm) over the message
    /// of its id, noting `editedAt`, only if nothing of it has gone: not cancelled, and either a
    /// recurring message still standing, or a scheduled one whose fan-out has not begun. False
    /// (nothing written) otherwise: the condition and the write are one statement, so a fan-out or a
    /// cancel at the same moment comes wholly before or wholly after it.
    func replaceMessage(_ message: StoredMessage, editedAt: Int64) throws -> Bool
    /// Writes a triggered message's request, payload and trigger over the message of its id, and
    /// its request and payload over its rounds (`<id>-<n>`: a person's later rounds send the edit
    /// too), noting `editedAt`, only while it stands (not cancelled). False (nothing written)
    /// otherwise. A person's send at the same moment reads the message before or after the edit.
    func replaceTriggeredMessage(_ message: StoredMessage, editedAt: Int64) throws -> Bool
}

extension SQLTransaction {
    /// The fan-out claims a due scheduled message by `fan_out_done` false (locking it on PostgreSQL,
    /// where this update then waits for the claim and reads the row as the claim left it), and its
    /// first step moves the cursor, the total or `fan_out_done`: a message with all three as made has
    /// sent nothing. A recurring message's copies are made from its row by ``RecurrenceRunner``,
    /// which moves `repeat_next_at` only if the content is still the one it copied.
    func replaceMessage(_ m: StoredMessage, editedAt: Int64) throws -> Bool {
        try database.run(
            """
            UPDATE messages SET resource_id = ?, content = ?, audience = ?, payload_prefix = ?, payload_suffix = ?,
                push_type = ?, priority = ?, expiration = ?, collapse_id = ?, topic = ?, environment = ?,
                send_at = ?, repeat_every = ?, repeat_weekdays = ?, repeat_until = ?, repeat_next_at = ?,
                variant_payloads = ?, winner_due_at = ?, variant_letters = ?, edited_at = ?
            WHERE id = ? AND cancelled_at IS NULL
                AND (repeat_next_at IS NOT NULL
                    OR (\(Self.isFalse("fan_out_done")) AND fan_out_cursor = 0 AND total = 0
                        AND send_at IS NOT NULL))
            """,
            [
                m.resourceId, m.content, m.audience, m.payloadPrefix, m.payloadSuffix, m.pushType, m.priority,
                m.expiration, m.collapseId, m.topic, m.environment, m.sendAt, m.repeatEvery, m.repeatWeekdays,
                m.repeatUntil, m.repeatNextAt, try VariantPayload.encode(m.variants, sample: m.variantSample),
                m.winnerDueAt, m.variantLetters, editedAt, m.id,
            ]) > 0
    }

    /// The message first, on its condition; its rounds only once it was written (they are cancelled
    /// with it, so none is written for a cancelled message). A round keeps its own id, times and
    /// counts, and is no trigger itself (``TriggerRounds/copy(of:round:now:)``).
    func replaceTriggeredMessage(_ m: StoredMessage, editedAt: Int64) throws -> Bool {
        let replaced =
            try database.run(
                """
                UPDATE messages SET resource_id = ?, content = ?, audience = ?, payload_prefix = ?, payload_suffix = ?,
                    push_type = ?, priority = ?, expiration = ?, collapse_id = ?, topic = ?, environment = ?,
                    trigger_event = ?, trigger_cancel_event = ?, trigger_delay = ?, trigger_reentry = ?, edited_at = ?
                WHERE id = ? AND cancelled_at IS NULL AND trigger_event IS NOT NULL
                """,
                [
                    m.resourceId, m.content, m.audience, m.payloadPrefix, m.payloadSuffix, m.pushType, m.priority,
                    m.expiration, m.collapseId, m.topic, m.environment, m.triggerEvent, m.triggerCancelEvent,
                    m.triggerDelay, m.triggerReentry, editedAt, m.id,
                ]) > 0
        guard replaced else { return false }
        try database.run(
            """
            UPDATE messages SET resource_id = ?, content = ?, audience = ?, payload_prefix = ?, payload_suffix = ?,
                push_type = ?, priority = ?, expiration = ?, collapse_id = ?, topic = ?, environment = ?, edited_at = ?
            WHERE trigger_round_of = ?
            """,
            [
                m.resourceId, m.content, m.audience, m.payloadPrefix, m.payloadSuffix, m.pushType, m.priority,
                m.expiration, m.collapseId, m.topic, m.environment, editedAt, m.publicId,
            ])
        return true
    }
}
