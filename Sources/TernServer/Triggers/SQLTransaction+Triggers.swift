import Foundation
import TernSQLite

/// The `trigger` of a stored request: what the directory reads of a set tag's or field's message,
/// or an in-app event's.
private struct TriggerOnly: Decodable {
    var trigger: MessageTrigger?
}

/// ``TriggerQueries``: the waits by their key (message, person) and by `trigger_runs_due` (the
/// waits only: a person's row between waits, kept for a message with re-entry, has no `due_at`);
/// the standing messages by `messages_triggers`, the partial index of the triggered ones; a
/// message's rounds by `messages_trigger_rounds`.
extension SQLTransaction {
    func activeTriggers() throws -> [Int64: [TriggerDirectory.Entry]] {
        var byProject: [Int64: [TriggerDirectory.Entry]] = [:]
        for row in try database.query(
            """
            SELECT id, project_id, trigger_event, trigger_cancel_event, trigger_delay, trigger_reentry, resource_id,
                CASE WHEN trigger_event IN (?, ?, ?, ?) THEN content END
            FROM messages WHERE trigger_event IS NOT NULL AND cancelled_at IS NULL ORDER BY id
            """,
            [MessageTrigger.tagSet, MessageTrigger.fieldSet, MessageTrigger.inAppClicked, MessageTrigger.inAppShown])
        {
            // A set tag's or field's message, or an in-app event's, keeps its tag, field or campaign
            // in its request, read for those messages only.
            let trigger = try row.string(7).flatMap {
                try JSONCoders.decoder.decode(TriggerOnly.self, from: Data($0.utf8)).trigger
            }
            byProject[row.requiredInt(1), default: []].append(
                TriggerDirectory.Entry(
                    messageId: row.requiredInt(0), eventName: row.requiredString(2), cancelEventName: row.string(3),
                    delay: row.int(4) ?? 0, reentry: row.int(5), resourceId: row.int(6), tag: trigger?.tag,
                    tagValue: trigger?.tagValue, field: trigger?.field, fieldValue: trigger?.fieldValue,
                    campaignId: trigger?.campaignId.flatMap { Int64($0) }, button: trigger?.button))
        }
        return byProject
    }

    /// A row between waits takes the new one only when the message last went before `wentBefore`
    /// (or never went): one statement, which on PostgreSQL waits for a runner taking the same
    /// person's wait and then reads its row as that runner left it.
    func armTrigger(messageId: Int64, profileId: Int64, dueAt: Int64, wentBefore: Int64?) throws {
        try database.run(
            """
            INSERT INTO trigger_runs (message_id, profile_id, due_at) VALUES (?, ?, ?)
            ON CONFLICT (message_id, profile_id) DO UPDATE SET due_at = excluded.due_at
            WHERE trigger_runs.due_at IS NULL AND (trigger_runs.went_at IS NULL OR trigger_runs.went_at <= ?)
            """, [messageId, profileId, dueAt, wentBefore ?? Int64.min])
    }

    /// A person the message never went to keeps no row; one it went to (with re-entry) keeps
    /// their round and when it went.
    func disarmTriggers(messageIds: [Int64], profileId: Int64) throws {
        for id in messageIds {
            try database.runBeforeNext(
                "DELETE FROM trigger_runs WHERE message_id = ? AND profile_id = ? AND went_at IS NULL", [id, profileId])
            try database.runBeforeNext(
                "UPDATE trigger_runs SET due_at = NULL WHERE message_id = ? AND profile_id = ? AND due_at IS NOT NULL",
                [id, profileId])
        }
    }

    /// Found by the key (message, person) for each of the project's triggered messages, so no index
    /// of `trigger_runs` by person is needed (a log-in is rare, the waits' writes are not). Each
    /// wait is ended on `source` as `disarmTriggers` ends one, by a statement that names its due
    /// time: on PostgreSQL it waits for a runner taking that wait and then finds it gone, and a
    /// runner that comes second finds it gone here. The target's row takes it as `armTrigger`
    /// would, with its due time, round and when it last went.
    func moveTriggerWaits(from source: Int64, to target: Int64, triggers: [TriggerDirectory.Entry], now: Int64)
        throws -> Int
    {
        guard source != target, !triggers.isEmpty else { return 0 }
        let reentry = Dictionary(triggers.map { ($0.messageId, $0.reentry) }, uniquingKeysWith: { first, _ in first })
        let ids = Array(reentry.keys).sorted()
        var moved = 0
        for start in stride(from: 0, to: ids.count, by: Self.moveChunk) {
            let chunk = ids[start..<min(start + Self.moveChunk, ids.count)]
            let waits = try database.query(
                Self.personWaitsQuery(messages: chunk.count), [source] + chunk.map { $0 as any SQLiteBindable })
            for wait in waits {
                let (messageId, dueAt, wentAt) = (wait.requiredInt(0), wait.requiredInt(1), wait.int(3))
                let key: [any SQLiteBindable] = [messageId, source, dueAt]
                let ended =
                    wentAt == nil
                    ? try database.run(
                        "DELETE FROM trigger_runs WHERE message_id = ? AND profile_id = ? AND due_at = ?", key)
                    : try database.run(
                        "UPDATE trigger_runs SET due_at = NULL WHERE message_id = ? AND profile_id = ? AND due_at = ?",
                        key)
                guard ended > 0 else { continue }  // a runner took it meanwhile
                let wentBefore = (reentry[messageId] ?? nil).map { now - $0 } ?? Int64.min
                moved += try database.run(
                    """
                    INSERT INTO trigger_runs (message_id, profile_id, due_at, round, went_at) VALUES (?, ?, ?, ?, ?)
                    ON CONFLICT (message_id, profile_id) DO UPDATE SET due_at = excluded.due_at
                    WHERE trigger_runs.due_at IS NULL AND (trigger_runs.went_at IS NULL OR trigger_runs.went_at <= ?)
                    """, [messageId, target, dueAt, wait.requiredInt(2), wentAt, wentBefore])
            }
        }
        return moved
    }

    /// The triggered messages one lookup of a person's waits names.
    private static var moveChunk: Int { 500 }

    /// A person's waits for `messages` messages, each by the key (its plans are tested).
    static func personWaitsQuery(messages: Int) -> String {
        """
        SELECT message_id, due_at, round, went_at FROM trigger_runs
        WHERE profile_id = ? AND message_id IN (\(RowTexts.values("?", rows: messages))) AND due_at IS NOT NULL
        """
    }

    func dueTriggerRuns(now: Int64, limit: Int) throws -> [TriggerRun] {
        try database.query(
            "SELECT message_id, profile_id FROM trigger_runs WHERE due_at <= ? ORDER BY due_at LIMIT ?", [now, limit]
        ).map { TriggerRun(messageId: $0.requiredInt(0), profileId: $0.requiredInt(1)) }
    }

    func takeTriggerRun(messageId: Int64, profileId: Int64, now: Int64, keep: Bool) throws -> Int? {
        let key: [any SQLiteBindable] = [messageId, profileId, now]
        guard keep else {
            let taken = try database.run(
                "DELETE FROM trigger_runs WHERE message_id = ? AND profile_id = ? AND due_at <= ?", key)
            return taken > 0 ? 1 : nil
        }
        return try database.query(
            """
            UPDATE trigger_runs SET due_at = NULL WHERE message_id = ? AND profile_id = ? AND due_at <= ?
            RETURNING round
            """, key
        ).first.map { Int($0.requiredInt(0)) }
    }

    func noteTriggerWent(messageId: Int64, profileId: Int64, now: Int64) throws {
        try database.run(
            "UPDATE trigger_runs SET round = round + 1, went_at = ? WHERE message_id = ? AND profile_id = ?",
            [now, messageId, profileId])
    }

    func removeTriggerRuns(messageId: Int64) throws {
        try database.run("DELETE FROM trigger_runs WHERE message_id = ?", [messageId])
    }

    func triggerRound(of message: StoredMessage, round: Int, now: Int64) throws -> StoredMessage {
        let publicId = TriggerRounds.publicId(of: message.publicId, round: round)
        if let made = try self.message(publicId: publicId) { return made }
        // Another runner's copy, made meanwhile, wins: on PostgreSQL this insert waits for its
        // transaction, and the read after it sees the copy once it committed.
        if let made = try insertMessageIfAbsent(TriggerRounds.copy(of: message, round: round, now: now)) {
            return made
        }
        guard let made = try self.message(publicId: publicId) else {
            throw StoreError.backend("round \(round) of message \(message.publicId) was neither made nor found")
        }
        return made
    }

    func triggerRounds(of publicId: String) throws -> [StoredMessage] {
        try database.query(
            "SELECT \(Self.messageColumns) FROM messages WHERE trigger_round_of = ? ORDER BY trigger_round", [publicId]
        ).map(Self.message)
    }

    func triggerRoundCount(of publicId: String) throws -> Int {
        Int(try scalar("SELECT COALESCE(MAX(trigger_round), 1) FROM messages WHERE trigger_round_of = ?", [publicId]))
    }
}

extension SQLTransaction {
    /// ``TriggerRounds/totals(_:_:figures:)`` read across the rounds at once: their rows of counts
    /// and skips by the rounds' ids, their reports and conversions by the push ids' common start
    /// (the message's id, then `.` or `-`). Nil once a round's reports were removed: those count
    /// by what was kept for it.
    func triggerRoundTotals(of message: StoredMessage) throws -> RoundTotals? {
        let rounds = "SELECT id FROM messages WHERE public_id = ? OR trigger_round_of = ?"
        let ids: [any SQLiteBindable] = [message.publicId, message.publicId]
        guard try scalar("SELECT COUNT(*) FROM message_history WHERE message_id IN (\(rounds))", ids) == 0 else {
            return nil
        }
        var totals = RoundTotals()
        let made = try database.queryFirst(
            "SELECT COUNT(*), CAST(SUM(total) AS BIGINT) FROM messages WHERE public_id = ? OR trigger_round_of = ?", ids
        )
        totals.rounds = Int(made?.int(0) ?? 1)
        totals.targeted = made?.int(1) ?? 0
        let counts = try deliveryCounts(where: "message_id IN (\(rounds))", ids)
        totals.queued = counts[.queued] ?? 0
        totals.sending = counts[.sending] ?? 0
        totals.sent = counts[.sent] ?? 0
        totals.failed = counts[.failed] ?? 0
        totals.invalidToken = counts[.invalidToken] ?? 0
        let skips = try database.queryFirst(
            """
            SELECT CAST(SUM(by_preference) AS BIGINT), CAST(SUM(by_frequency_cap) AS BIGINT) FROM message_skips
            WHERE message_id IN (\(rounds))
            """, ids)
        totals.skippedByPreference = skips?.int(0) ?? 0
        totals.skippedByFrequencyCap = skips?.int(1) ?? 0
        let reports = try pushEventCounts(messageIdPrefix: message.publicId)
        totals.delivered = reports[.delivery] ?? 0
        totals.opened = reports[.open] ?? 0
        totals.converted = try conversions(messageIdPrefix: message.publicId, eventName: nil)
        return totals
    }
}
