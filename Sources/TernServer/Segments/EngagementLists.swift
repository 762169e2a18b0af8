import Foundation

/// A send's engagement conditions, read once when it begins rather than by every chunk of its
/// fan-out.
///
/// Each condition is a list of profiles (the message's reports, its sent deliveries, every open
/// since a time): read in a statement of its own, a list of a message sent to a million devices
/// costs a second or more of the database's time, and a fan-out of a million subscriptions runs a
/// thousand chunks, each in the writer's transaction. So the first chunk's transaction keeps each
/// list's profiles in `audience_lists` under the sending message, and the chunks probe them by key
/// (``EngagementCondition/Subject/kept(sending:list:except:)``); the last chunk, or a cancel,
/// removes them. The audience is then the one the lists held when the send began: a person who
/// opens the earlier message while a `not_opened` reminder fans out still gets the reminder.
///
/// ```swift
/// let lists = EngagementLists(expression, sending: message.id, now: message.sentFrom)
/// if !lists.lists.isEmpty, message.fanOutCursor == 0 {
///     try tx.keepAudienceLists(messageId: message.id, filter: expression, now: message.sentFrom)
/// }
/// let chunk = try tx.pushCandidates(scope, filter: lists.expression, …)
/// ```
struct EngagementLists: Sendable {
    /// One list: its number under the sending message, and the `SELECT` of its profiles.
    struct List: Sendable {
        var number: Int
        var profiles: FilterSQL
    }

    /// The filter with each engagement condition reading its kept lists.
    var expression: AudienceExpression
    /// The lists to keep, numbered from 0 in the filter's order.
    var lists: [List] = []

    init(_ expression: AudienceExpression, sending: Int64, now: Int64) {
        self.expression = .all([])
        self.expression = keeping(expression, sending: sending, now: now)
    }

    private mutating func keeping(_ expression: AudienceExpression, sending: Int64, now: Int64) -> AudienceExpression {
        switch expression {
        case .all(let parts): return .all(parts.map { keeping($0, sending: sending, now: now) })
        case .any(let parts): return .any(parts.map { keeping($0, sending: sending, now: now) })
        case .condition: return expression
        case .engagement(let condition):
            guard let (included, excluded) = FilterSQL.profileLists(condition, now) else { return expression }
            let list = append(included)
            let except = excluded.map { append($0) }
            return .engagement(EngagementCondition(.kept(sending: sending, list: list, except: except)))
        }
    }

    private mutating func append(_ profiles: FilterSQL) -> Int {
        lists.append(List(number: lists.count, profiles: profiles))
        return lists.count - 1
    }
}
