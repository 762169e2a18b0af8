import Foundation
import TernSQLite

/// Engagement conditions (``EngagementCondition``) as SQL on `subscriptions s`: each is the
/// subscription's profile in (or not in) a list of profiles read once per statement from the
/// message's own rows, never a scan per subscription looked at:
///
/// - reports (`opened`, `delivered`): the message's range of `push_events_message` (its public id
///   and a dot start every push id it sent, whatever the version or the delivery);
/// - `sent`: the message's deliveries by their key (message, id), each with a sent outcome, by key
///   of `delivery_outcomes`, or in a run of `delivery_sent_runs` (the first run ending at or after
///   it, by key), joined to the subscription's current profile;
/// - `opened_any`: every open report since the time, by the whole `push_events` table (it has no
///   index on time).
///
/// A report whose profile was erased (`profile_id` null) counts for no one; the `NOT IN` of
/// `not_opened` leaves those out, as a null in its list would make it match no one.
extension FilterSQL {
    static func engagement(_ c: EngagementCondition, _ now: Int64, _ p: inout [any SQLiteBindable]) -> String {
        switch c.subject {
        case .openedAny(let days):
            p.append(AudienceCondition.since(days, now: now))
            return "s.profile_id IN (SELECT p.profile_id FROM push_events p WHERE p.type = 'open' AND p.time >= ?)"
        case .message(let id, .opened):
            return "s.profile_id IN (\(reports(id, types: "'open'", &p)))"
        case .message(let id, .delivered):
            return "s.profile_id IN (\(reports(id, types: "'delivery', 'open'", &p)))"
        case .message(let id, .sent):
            return "s.profile_id IN (\(sent(id, &p)))"
        case .message(let id, .notOpened):
            let sent = sent(id, &p)
            let opened = reports(id, types: "'open'", &p)
            return "(s.profile_id IN (\(sent)) AND s.profile_id NOT IN (\(opened) AND p.profile_id IS NOT NULL))"
        }
    }

    /// The profiles of the message's reports of these types.
    private static func reports(_ id: String, types: String, _ p: inout [any SQLiteBindable]) -> String {
        p += PrefixRange.bounds(id + ".")
        return
            "SELECT p.profile_id FROM push_events p WHERE p.message_id >= ? AND p.message_id < ? AND p.type IN (\(types))"
    }

    /// The current profiles of the subscriptions a provider accepted the message for.
    private static func sent(_ id: String, _ p: inout [any SQLiteBindable]) -> String {
        p.append(id)
        return """
            SELECT ds.profile_id FROM deliveries d JOIN subscriptions ds ON ds.id = d.subscription_id
            WHERE d.message_id = (SELECT m.id FROM messages m WHERE m.public_id = ?)
                AND (EXISTS (SELECT 1 FROM delivery_outcomes o WHERE o.delivery_id = d.id AND o.status = 'sent')
                    OR (SELECT r.first_id FROM delivery_sent_runs r WHERE r.message_id = d.message_id
                        AND r.last_id >= d.id ORDER BY r.last_id LIMIT 1) <= d.id)
            """
    }
}
