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
///
/// A fan-out reads a list once, not once per chunk: its send keeps each list's profiles in
/// `audience_lists` when it begins (``EngagementLists``), and its chunks probe them by key.
extension FilterSQL {
    static func engagement(_ c: EngagementCondition, _ now: Int64, _ p: inout [any SQLiteBindable]) -> String {
        if case .kept(let sending, let list, let except) = c.subject {
            // One probe of the kept list's key per subscription looked at.
            let probe =
                "SELECT 1 FROM audience_lists a WHERE a.message_id = ? AND a.list = ? AND a.profile_id = s.profile_id"
            p += [sending, Int64(list)]
            guard let except else { return "EXISTS (\(probe))" }
            p += [sending, Int64(except)]
            return "(EXISTS (\(probe)) AND NOT EXISTS (\(probe)))"
        }
        guard let (included, excluded) = profileLists(c, now) else { return "0 = 1" }
        p += included.parameters
        guard let excluded else { return "s.profile_id IN (\(included.sql))" }
        p += excluded.parameters
        return
            "(s.profile_id IN (\(included.sql)) AND s.profile_id NOT IN (\(excluded.sql) AND p.profile_id IS NOT NULL))"
    }

    /// The condition as a list of profiles it admits and, for `not_opened`, one it then leaves out
    /// (each a `SELECT` of one column, `profile_id`, possibly null); nil for a kept condition.
    static func profileLists(_ c: EngagementCondition, _ now: Int64) -> (FilterSQL, FilterSQL?)? {
        switch c.subject {
        case .openedAny(let days):
            let sql = "SELECT p.profile_id FROM push_events p WHERE p.type = 'open' AND p.time >= ?"
            return (FilterSQL(sql: sql, parameters: [AudienceCondition.since(days, now: now)]), nil)
        case .message(let id, .opened): return (reports(id, types: "'open'"), nil)
        case .message(let id, .delivered): return (reports(id, types: "'delivery', 'open'"), nil)
        case .message(let id, .sent): return (sent(id), nil)
        case .message(let id, .notOpened): return (sent(id), reports(id, types: "'open'"))
        case .kept: return nil
        }
    }

    /// The profiles of the message's reports of these types.
    private static func reports(_ id: String, types: String) -> FilterSQL {
        FilterSQL(
            sql: "SELECT p.profile_id FROM push_events p WHERE p.message_id >= ? AND p.message_id < ? "
                + "AND p.type IN (\(types))",
            parameters: PrefixRange.bounds(id + "."))
    }

    /// The current profiles of the subscriptions a provider accepted the message for.
    private static func sent(_ id: String) -> FilterSQL {
        FilterSQL(
            sql: """
                SELECT ds.profile_id FROM deliveries d JOIN subscriptions ds ON ds.id = d.subscription_id
                WHERE d.message_id = (SELECT m.id FROM messages m WHERE m.public_id = ?)
                    AND (EXISTS (SELECT 1 FROM delivery_outcomes o WHERE o.delivery_id = d.id AND o.status = 'sent')
                        OR (SELECT r.first_id FROM delivery_sent_runs r WHERE r.message_id = d.message_id
                            AND r.last_id >= d.id ORDER BY r.last_id LIMIT 1) <= d.id)
                """,
            parameters: [id])
    }
}
