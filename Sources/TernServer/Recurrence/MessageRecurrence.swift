import Foundation
import TernProtocol

/// A message's `repeat`: the message stands, and every `every_days` from its first time (its
/// `send_at`, or when it is made) a copy of it goes to its audience as it is then, a message of
/// its own (`recurring_of` names this one), until `until` or until it is cancelled.
///
/// ```json
/// {"title": "This week's picks", "body": "Five new recipes",
///  "repeat": {"every_days": 7}, "send_at": 1765184400000, "local_time_of_day": "09:00",
///  "audience": {"type": "segment", "segment_id": 3}}
/// ```
public struct MessageRecurrence: Codable, Sendable, Equatable {
    /// Days from one time to the next: 1 (daily) to 90.
    public var everyDays: Int
    /// No copy goes after this time (ms since 1970); nil: until the message is cancelled.
    public var until: Int64?

    /// A recurrence.
    ///
    /// - Parameters:
    ///   - everyDays: Days from one time to the next, 1 to 90.
    ///   - until: The last time a copy may go, in ms since 1970; default nil (until cancelled).
    public init(everyDays: Int, until: Int64? = nil) {
        self.everyDays = everyDays
        self.until = until
    }

    enum CodingKeys: String, CodingKey {
        case until
        case everyDays = "every_days"
    }

    static let maxEveryDays = 90
    static let day: Int64 = 86_400_000

    /// The time between copies, in ms.
    var every: Int64 { Int64(everyDays) * Self.day }

    /// Checks the recurrence and what goes with it. A copy is an ordinary message made at its time:
    /// its audience read then, its own statistics; what decides one send's devices or versions (a
    /// trigger, an A/B test, a test send, a Live Activity) does not go with it.
    static func check(_ request: MessageRequest, first: Int64) throws(APIError) {
        guard let recurrence = request.recurrence else { return }
        guard (1...maxEveryDays).contains(recurrence.everyDays) else {
            throw .badRequest("repeat.every_days must be 1 to \(maxEveryDays), not \(recurrence.everyDays)")
        }
        if let until = recurrence.until, until < first {
            throw .badRequest("repeat.until must be at or after the first time (send_at, or now): \(until) is before")
        }
        let stray: [(String, Bool)] = [
            ("trigger", request.trigger != nil), ("variants", request.variants != nil),
            ("test", request.test != nil), ("live_activity", request.liveActivity != nil),
        ]
        if let field = stray.first(where: \.1) {
            throw .badRequest(
                "\(field.0) does not go with repeat: each time, a copy of the message goes to its audience as an "
                    + "ordinary message")
        }
    }

    /// The time after `last` that is past `now` (times missed while no node ran are skipped); nil
    /// when it would be after `until`.
    func next(after last: Int64, now: Int64) -> Int64? {
        let steps = max(1, (now - last) / every + 1)
        let next = last + steps * every
        if let until, next > until { return nil }
        return next
    }
}
