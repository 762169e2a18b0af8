import Foundation
import TernProtocol
import TernSQLite

extension SQLTransaction {
    static var messageColumns: String {
        """
        id, public_id, project_id, resource_id, content, audience, payload_prefix, payload_suffix, push_type,
        priority, expiration, collapse_id, topic, environment, fan_out_cursor, fan_out_done, total, created_at,
        cancelled_at, send_at, variant_payloads, winner_message_id, winner_due_at, trigger_event,
        trigger_cancel_event, trigger_delay, repeat_every, repeat_until, repeat_next_at, recurring_of,
        repeat_weekdays, trigger_reentry, trigger_round_of, trigger_round, edited_at
        """
    }

    func insertMessage(_ m: StoredMessage) throws -> StoredMessage {
        var stored = m
        stored.id = try insert(Self.insertMessageSQL, try Self.insertValues(m))
        return stored
    }

    /// Inserts `m` unless a message of its public id (or, for a triggered message's round, of its
    /// round) is there already; nil then.
    func insertMessageIfAbsent(_ m: StoredMessage) throws -> StoredMessage? {
        try database.query(
            Self.insertMessageSQL + " ON CONFLICT DO NOTHING RETURNING \(Self.messageColumns)", try Self.insertValues(m)
        ).first.map(Self.message)
    }

    private static var insertMessageSQL: String {
        """
        INSERT INTO messages (public_id, project_id, resource_id, content, audience, payload_prefix,
            payload_suffix, push_type, priority, expiration, collapse_id, topic, environment, fan_out_cursor,
            fan_out_done, total, created_at, send_at, variant_payloads, winner_due_at, variant_letters,
            trigger_event, trigger_cancel_event, trigger_delay, repeat_every, repeat_until, repeat_next_at,
            recurring_of, repeat_weekdays, trigger_reentry, trigger_round_of, trigger_round)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        """
    }

    private static func insertValues(_ m: StoredMessage) throws -> [any SQLiteBindable] {
        [
            m.publicId, m.projectId, m.resourceId, m.content, m.audience, m.payloadPrefix, m.payloadSuffix,
            m.pushType, m.priority, m.expiration, m.collapseId, m.topic, m.environment, m.fanOutCursor,
            m.fanOutDone, m.total, m.createdAt, m.sendAt,
            try VariantPayload.encode(m.variants, sample: m.variantSample), m.winnerDueAt, m.variantLetters,
            m.triggerEvent, m.triggerCancelEvent, m.triggerDelay, m.repeatEvery, m.repeatUntil, m.repeatNextAt,
            m.recurringOf, m.repeatWeekdays, m.triggerReentry, m.triggerRoundOf, m.triggerRound,
        ]
    }

    /// Notes the message that sent the test's winner; false when one was noted already.
    func setWinner(messageId: Int64, winner: String) throws -> Bool {
        try database.run(
            "UPDATE messages SET winner_message_id = ? WHERE id = ? AND winner_message_id IS NULL", [winner, messageId])
            > 0
    }

    /// A/B tests whose winner the server picks now: due, none sent, not cancelled, their fan-out
    /// done (a throttled or local-time test waits for its last device's turn to be written).
    func messagesAwaitingWinner(now: Int64, limit: Int) throws -> [StoredMessage] {
        try database.query(
            """
            SELECT \(Self.messageColumns) FROM messages
            WHERE winner_due_at <= ? AND winner_message_id IS NULL AND cancelled_at IS NULL
                AND fan_out_done ORDER BY winner_due_at LIMIT ?
            """, [now, limit]
        ).map(Self.message)
    }

    /// Stops the server picking the test's winner (it could not be sent); an operator still can.
    func clearWinnerDue(messageId: Int64) throws {
        try database.run("UPDATE messages SET winner_due_at = NULL WHERE id = ?", [messageId])
    }

    func message(id: Int64) throws -> StoredMessage? {
        try database.queryFirst("SELECT \(Self.messageColumns) FROM messages WHERE id = ?", [id]).map(Self.message)
    }

    func message(publicId: String) throws -> StoredMessage? {
        try database.queryFirst("SELECT \(Self.messageColumns) FROM messages WHERE public_id = ?", [publicId])
            .map(Self.message)
    }

    /// In a write on PostgreSQL, the messages are locked (`fanOutLock`): of several nodes fanning
    /// out, each takes a message no other node is fanning out at that moment. A scheduled message
    /// waits for its time (`messages_fanning_out` holds only the messages not done, a few).
    func messagesFanningOut(limit: Int, now: Int64) throws -> [StoredMessage] {
        try database.query(
            """
            SELECT \(Self.messageColumns) FROM messages
            WHERE \(Self.isFalse("fan_out_done")) AND (send_at IS NULL OR send_at <= ?) ORDER BY id LIMIT ?
            \(fanOutLock)
            """, [now, limit]
        ).map(Self.message)
    }

    func advanceFanOut(messageId: Int64, cursor: Int64, done: Bool, added: Int64) throws {
        try database.run(
            "UPDATE messages SET fan_out_cursor = ?, fan_out_done = ?, total = total + ? WHERE id = ?",
            [cursor, done, added, messageId])
    }

    /// On PostgreSQL the update waits for a fan-out step that holds the message's row
    /// (``messagesFanningOut(limit:now:)`` locks it) and then finds it again: the step's progress is
    /// kept and the fan-out is done. Retries waiting for a later time come due now (by
    /// `delivery_queue_due`, and the message's turn with them), so they close soon instead of when
    /// their wait ends; entries being sent keep their lease.
    func cancelMessage(id: Int64, now: Int64) throws {
        guard
            try database.run(
                "UPDATE messages SET cancelled_at = ?, fan_out_done = ? WHERE id = ? AND cancelled_at IS NULL",
                [now, true, id]) > 0
        else { return }
        try forgetAudienceLists(messageId: id)
        let waiting = try database.run(
            "UPDATE delivery_queue SET due_at = ? WHERE message_id = ? AND due_at > ? AND status = ?",
            [now, id, now, DeliveryStatus.queued.rawValue])
        if waiting > 0 { try dueAgain(messageId: id, at: now) }
    }

    func pushEventCounts(messageIdPrefix prefix: String) throws -> [PushEventRequest.Kind: Int64] {
        var counts: [PushEventRequest.Kind: Int64] = [:]
        for row in try database.query(
            "SELECT type, COUNT(*) FROM push_events WHERE message_id >= ? AND message_id < ? GROUP BY type",
            Self.range(startingWith: prefix))
        {
            if let kind = PushEventRequest.Kind(rawValue: row.requiredString(0)) { counts[kind] = row.requiredInt(1) }
        }
        return counts
    }

    func conversions(messageIdPrefix prefix: String, eventName: String?) throws -> Int64 {
        // The goals by `goals_message` (a range of the prefix), each push id checked against its
        // open report by `push_events_message`.
        let named = eventName == nil ? "" : " AND g.event_name = ?"
        return try database.queryFirst(
            """
            SELECT COUNT(DISTINCT g.send_message_id) FROM goals g
            WHERE g.send_message_id >= ? AND g.send_message_id < ?\(named)
                AND EXISTS (SELECT 1 FROM push_events p WHERE p.message_id = g.send_message_id AND p.type = 'open')
            """, Self.range(startingWith: prefix) + (eventName.map { [$0] } ?? [])
        )?.int(0) ?? 0
    }

    func variantTargets(_ message: StoredMessage) throws -> [Int64] {
        guard !message.variants.isEmpty else { return [] }
        let split = message.variantSplit
        var targets = Array(repeating: Int64(0), count: message.variants.count)
        for row in try database.query(
            """
            SELECT \(MessageVariants.bucketSQL) AS bucket, COUNT(*) FROM deliveries WHERE message_id = ?
            GROUP BY bucket
            """, [MessageVariants.offset(messageId: message.id), message.id])
        {
            targets[split.index(bucket: Int(row.requiredInt(0)))] += row.requiredInt(1)
        }
        return targets
    }

    /// ``PrefixRange/bounds(_:)``.
    static func range(startingWith prefix: String) -> [any SQLiteBindable] {
        PrefixRange.bounds(prefix)
    }

    static func message(_ row: Connection.Row) throws -> StoredMessage {
        var message = StoredMessage(
            id: row.requiredInt(0), publicId: row.requiredString(1), projectId: row.requiredInt(2),
            resourceId: row.int(3), content: row.requiredString(4), audience: row.requiredString(5),
            payloadPrefix: row.data(6) ?? Data(), payloadSuffix: row.data(7) ?? Data(),
            pushType: row.requiredString(8), priority: row.int(9).map { Int($0) }, expiration: row.int(10),
            collapseId: row.string(11), topic: row.string(12), environment: row.requiredString(13),
            fanOutCursor: row.requiredInt(14), fanOutDone: row.bool(15) ?? false, total: row.requiredInt(16),
            createdAt: row.requiredInt(17), cancelledAt: row.int(18), sendAt: row.int(19))
        let variants = try VariantPayload.decode(row.data(20), messageId: message.publicId)
        message.variants = variants.versions
        message.variantSample = variants.sample
        message.winnerMessageId = row.string(21)
        message.winnerDueAt = row.int(22)
        message.triggerEvent = row.string(23)
        message.triggerCancelEvent = row.string(24)
        message.triggerDelay = row.int(25)
        message.repeatEvery = row.int(26)
        message.repeatUntil = row.int(27)
        message.repeatNextAt = row.int(28)
        message.recurringOf = row.string(29)
        message.repeatWeekdays = row.string(30)
        message.triggerReentry = row.int(31)
        message.triggerRoundOf = row.string(32)
        message.triggerRound = row.int(33).map { Int($0) }
        message.editedAt = row.int(34)
        return message
    }
}

/// The bounds of the strings that start with `prefix` (an ASCII one), as a range of an index: at
/// least `prefix`, below it with its last character's successor. A message's reports are the
/// range of its public id and a dot (`m_…` ids hold no dot of their own).
enum PrefixRange {
    static func bounds(_ prefix: String) -> [any SQLiteBindable] {
        [prefix, String(prefix.dropLast()) + String(UnicodeScalar(UInt8(prefix.utf8.last ?? 0) &+ 1))]
    }
}
