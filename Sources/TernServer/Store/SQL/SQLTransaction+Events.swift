import Foundation
import TernProtocol
import TernSQLite

extension SQLTransaction {
    func insertGoal(_ goal: GoalRecord) throws {
        try database.runBeforeNext(
            """
            INSERT INTO goals (pixel_id, profile_id, resource_id, client_id, event_name, send_message_id, payload,
                matching, matching_type, utm, time, received_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                goal.pixelId, goal.profileId, goal.resourceId, goal.clientId, goal.eventName, goal.sendMessageId,
                Self.jsonOptional(goal.payload), Self.jsonOptional(goal.matching), goal.matchingType,
                try Self.jsonOptional(goal.utm), goal.time, goal.receivedAt,
            ])
    }

    func goals(pixelId: Int64, limit: Int) throws -> [GoalRecord] {
        try database.query(
            "SELECT \(Self.goalColumns) FROM goals WHERE pixel_id = ? ORDER BY id DESC LIMIT ?", [pixelId, limit]
        ).map(Self.goal)
    }

    /// The columns ``goal(_:)`` reads, in its order.
    static var goalColumns: String {
        """
        id, pixel_id, profile_id, resource_id, client_id, event_name, send_message_id, payload, matching, \
        matching_type, utm, time, received_at
        """
    }

    /// A goal read from its thirteen columns (``goalColumns``).
    static func goal(_ row: Connection.Row) throws -> GoalRecord {
        GoalRecord(
            id: row.requiredInt(0), pixelId: row.requiredInt(1), profileId: row.int(2), resourceId: row.int(3),
            clientId: row.requiredString(4), eventName: row.requiredString(5), sendMessageId: row.string(6),
            payload: try object(row.string(7)),
            matching: try object(row.string(8)), matchingType: row.string(9),
            utm: try decode(UTM.self, row.string(10)), time: row.requiredInt(11),
            receivedAt: row.requiredInt(12))
    }

    func insertPushEvent(_ event: PushEventRecord) throws -> Bool {
        try database.run(
            """
            INSERT INTO push_events (resource_id, profile_id, message_id, type, time, received_at)
            VALUES (?, ?, ?, ?, ?, ?)
            ON CONFLICT (resource_id, message_id, type) DO NOTHING
            """,
            [event.resourceId, event.profileId, event.messageId, event.type.rawValue, event.time, event.receivedAt]
        ) > 0
    }

    func insertPushEvent(
        pushId: String, type: PushEventRequest.Kind, time: Int64, receivedAt: Int64, sentTo resourceId: Int64,
        orTo profileId: Int64?
    ) throws -> Bool {
        guard let (publicId, letter, deliveryId) = PushRecipient.parts(pushId) else { return false }
        // The recipient's lookup (`pushRecipient`) and the insert in one statement: on PostgreSQL a
        // report was three round trips with the stored answer's lookup, then two. Guarded by that
        // lookup's condition while it waits (`heldReadNone`), the insert goes with it: one.
        let unanswered = database.heldReadNone
        return try database.runCarryingHeldRead(
            Self.pushEventOfRecipientSQL(unanswered?.condition),
            [pushId, type.rawValue, time, receivedAt, deliveryId, publicId, resourceId, profileId, letter, letter]
                + (unanswered?.parameters ?? [])
        ) > 0
    }

    /// ``insertPushEvent(pushId:type:time:receivedAt:sentTo:orTo:)``'s statement, with `condition`
    /// added to its `WHERE`. The delivery is found by its message, then by its key (message, id):
    /// PostgreSQL has no index on the id alone (``PostgresMigrations/deliveryKeys``). Binds: the
    /// push id, the type, the time, the time received, the delivery, the message's public id, the
    /// resource, the profile, the version's letter twice (``MessageVariants/letterMatchesSQL``),
    /// then the condition's.
    static func pushEventOfRecipientSQL(_ condition: String?) -> String {
        """
        INSERT INTO push_events (resource_id, profile_id, message_id, type, time, received_at)
        SELECT s.resource_id, s.profile_id, ?, ?, CAST(? AS BIGINT), CAST(? AS BIGINT) FROM messages m
        JOIN deliveries d ON d.message_id = m.id
        JOIN subscriptions s ON s.id = d.subscription_id
        WHERE d.id = ? AND m.public_id = ? AND (s.resource_id = ? OR s.profile_id = ?)
            AND \(MessageVariants.letterMatchesSQL)\(condition.map { " AND " + $0 } ?? "")
        ON CONFLICT (resource_id, message_id, type) DO NOTHING
        """
    }

    func pushEvents(messageId: String) throws -> [PushEventRecord] {
        try database.query(
            """
            SELECT id, resource_id, profile_id, message_id, type, time, received_at
            FROM push_events WHERE message_id = ? ORDER BY id
            """, [messageId]
        ).map { row in
            PushEventRecord(
                id: row.requiredInt(0), resourceId: row.requiredInt(1), profileId: row.int(2),
                messageId: row.requiredString(3), type: PushEventRequest.Kind(rawValue: row.requiredString(4)) ?? .open,
                time: row.requiredInt(5), receivedAt: row.requiredInt(6))
        }
    }

    func pushRecipient(pushId: String) throws -> PushRecipient? {
        guard let (publicId, letter, deliveryId) = PushRecipient.parts(pushId) else { return nil }
        return try database.queryFirst(
            """
            SELECT s.resource_id, s.profile_id FROM messages m
            JOIN deliveries d ON d.message_id = m.id
            JOIN subscriptions s ON s.id = d.subscription_id
            WHERE d.id = ? AND m.public_id = ? AND \(MessageVariants.letterMatchesSQL)
            """, [deliveryId, publicId, letter, letter]
        ).map { PushRecipient(resourceId: $0.requiredInt(0), profileId: $0.requiredInt(1)) }
    }

    private static var storedAnswerQuery: String {
        "SELECT fingerprint, status, body FROM idempotent_answers WHERE scope = ? AND key = ?"
    }

    private static func storedAnswer(_ row: Connection.Row) -> StoredAnswer {
        StoredAnswer(fingerprint: row.requiredString(0), status: Int(row.requiredInt(1)), body: row.data(2) ?? Data())
    }

    func storedAnswer(scope: String, key: String) throws -> StoredAnswer? {
        try database.queryFirst(Self.storedAnswerQuery, [scope, key]).map(Self.storedAnswer)
    }

    func unlessAnswered<Value>(scope: String, key: String, _ write: () throws -> Value) throws
        -> FoundOrRan<StoredAnswer, Value>
    {
        switch try database.unlessRead(Self.storedAnswerQuery, [scope, key], write) {
        case .found(let rows): return .found(Self.storedAnswer(rows[0]))
        case .ran(let value): return .ran(value)
        }
    }

    /// The write's last statement, so it goes with the batch's next one (`runBeforeNext`): on
    /// PostgreSQL one round trip a write fewer. When another connection stored the same key first,
    /// it fails there, and its batch runs again write by write: this write then finds that answer
    /// and replays it (a write alone fails with the conflict, as it did when the insert was its own
    /// round trip).
    func storeAnswer(scope: String, key: String, answer: StoredAnswer, now: Int64) throws {
        try database.runBeforeNext(
            """
            INSERT INTO idempotent_answers (scope, key, fingerprint, status, body, created_at) VALUES (?, ?, ?, ?, ?, ?)
            """, [scope, key, answer.fingerprint, answer.status, answer.body, now])
    }

    func deleteAnswers(before cutoff: Int64) throws -> Int {
        try database.run("DELETE FROM idempotent_answers WHERE created_at < ?", [cutoff])
    }
}
