import Foundation
import TernSQLite

/// The message list (`GET …/messages`), written once for both backends. A page is read newest
/// first by id and stops at its limit; a filter whose messages are few among many has an index to
/// walk instead (`messages_standing`, `messages_triggered`, `messages_repeating`, `messages_project`,
/// `messages_fanning_out` for the scheduled), whose conditions the query's must repeat word for word.
extension SQLTransaction {
    func messages(matching filter: MessageListFilter, beforeId: Int64, limit: Int, now: Int64) throws
        -> [StoredMessage]
    {
        var conditions: [String] = []
        var parameters: [any SQLiteBindable] = []
        if beforeId > 0 {
            conditions.append("id < ?")
            parameters.append(beforeId)
        }
        if let projectId = filter.projectId {
            conditions.append("project_id = ?")
            parameters.append(projectId)
        }
        if let after = filter.createdAfter {
            conditions.append("created_at >= ?")
            parameters.append(after)
        }
        if let before = filter.createdBefore {
            conditions.append("created_at < ?")
            parameters.append(before)
        }
        if let state = filter.state {
            let (condition, values) = Self.condition(state, now: now)
            conditions.append(condition)
            parameters += values
        }
        if let kind = filter.kind { conditions.append(Self.condition(kind)) }
        if let pattern = filter.storePattern {
            conditions.append("(LOWER(public_id) LIKE ? ESCAPE '\\' OR LOWER(content) LIKE ? ESCAPE '\\')")
            parameters += [pattern, pattern]
        }
        let filtered = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
        return try database.query(
            "SELECT \(Self.messageColumns) FROM messages \(filtered) ORDER BY id DESC LIMIT ?", parameters + [limit]
        ).map(Self.message)
    }

    /// Standing until cancelled, as `messages_standing` holds them (the text must stay the index's).
    private static var standing: String {
        "cancelled_at IS NULL AND (trigger_event IS NOT NULL OR trigger_round_of IS NOT NULL OR repeat_next_at IS NOT NULL)"
    }
    /// Neither cancelled nor standing: scheduled, sending or done.
    private static var goingOnce: String {
        "cancelled_at IS NULL AND trigger_event IS NULL AND trigger_round_of IS NULL AND repeat_next_at IS NULL"
    }
    /// Deliveries queued or being sent, by the message's counts.
    private static var busy: String {
        "COALESCE((SELECT SUM(c.queued + c.sending) FROM message_counts c WHERE c.message_id = messages.id), 0) > 0"
    }

    private static func condition(_ state: MessageListFilter.State, now: Int64) -> (String, [any SQLiteBindable]) {
        switch state {
        case .cancelled: ("cancelled_at IS NOT NULL", [])
        case .standing: (standing, [])
        case .scheduled: ("\(goingOnce) AND \(isFalse("fan_out_done")) AND send_at > ?", [now])
        case .sending:
            (
                "\(goingOnce) AND (\(isFalse("fan_out_done")) AND (send_at IS NULL OR send_at <= ?) OR "
                    + "NOT \(isFalse("fan_out_done")) AND \(busy))", [now]
            )
        case .done: ("\(goingOnce) AND NOT \(isFalse("fan_out_done")) AND NOT \(busy)", [])
        }
    }

    private static func condition(_ kind: MessageListFilter.Kind) -> String {
        let live = "push_type = '\(PushType.liveActivity.rawValue)'"
        let trigger = "(trigger_event IS NOT NULL OR trigger_round_of IS NOT NULL)"
        let recurring = "(repeat_every IS NOT NULL OR repeat_weekdays IS NOT NULL OR recurring_of IS NOT NULL)"
        let test =
            "(variant_payloads IS NOT NULL OR EXISTS (SELECT 1 FROM messages t WHERE t.winner_message_id = messages.public_id))"
        return switch kind {
        case .liveActivity: live
        case .trigger: "NOT \(live) AND \(trigger)"
        case .recurring: "NOT \(live) AND NOT \(trigger) AND \(recurring)"
        case .abTest: "NOT \(live) AND NOT \(trigger) AND NOT \(recurring) AND \(test)"
        case .oneOff: "NOT \(live) AND NOT \(trigger) AND NOT \(recurring) AND NOT \(test)"
        }
    }
}
