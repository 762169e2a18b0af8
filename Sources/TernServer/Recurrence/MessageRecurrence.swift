import Foundation
import TernProtocol

/// A message's `repeat`: the message stands, and a copy of it goes to its audience as it is then,
/// a message of its own (`recurring_of` names this one), at each time of its rhythm until `until`
/// or until it is cancelled. The rhythm is one of two: every `every_days` from its first time (its
/// `send_at`, or when it is made), or on each of the `weekdays` listed, at the first time's time of
/// day, in UTC.
///
/// ```json
/// {"title": "This week's picks", "body": "Five new recipes",
///  "repeat": {"weekdays": ["mon", "thu"]}, "send_at": 1765184400000, "local_time_of_day": "09:00",
///  "audience": {"type": "segment", "segment_id": 3}}
/// ```
public struct MessageRecurrence: Codable, Sendable, Equatable {
    /// Days from one time to the next: 1 (daily) to 90; nil with ``weekdays``.
    public var everyDays: Int?
    /// The days of the week a copy goes, in UTC (1 to 7 of them, each once); nil with ``everyDays``.
    public var weekdays: [Weekday]?
    /// No copy goes after this time (ms since 1970); nil: until the message is cancelled.
    public var until: Int64?

    /// A copy every `everyDays` days.
    ///
    /// - Parameters:
    ///   - everyDays: Days from one time to the next, 1 to 90.
    ///   - until: The last time a copy may go, in ms since 1970; default nil (until cancelled).
    public init(everyDays: Int, until: Int64? = nil) {
        self.everyDays = everyDays
        self.until = until
    }

    /// A copy on each of `weekdays` (UTC), at the first time's time of day.
    ///
    /// - Parameters:
    ///   - weekdays: The days of the week, 1 to 7 of them, each once.
    ///   - until: The last time a copy may go, in ms since 1970; default nil (until cancelled).
    public init(weekdays: [Weekday], until: Int64? = nil) {
        self.weekdays = weekdays
        self.until = until
    }

    /// A day of the week, as `repeat.weekdays` names it.
    public enum Weekday: String, Codable, Sendable, CaseIterable {
        /// Monday.
        case mon
        /// Tuesday.
        case tue
        /// Wednesday.
        case wed
        /// Thursday.
        case thu
        /// Friday.
        case fri
        /// Saturday.
        case sat
        /// Sunday.
        case sun

        /// Refuses another name with the names it takes.
        public init(from decoder: any Decoder) throws {
            let text = try decoder.singleValueContainer().decode(String.self)
            guard let day = Weekday(rawValue: text) else {
                throw APIError.badRequest(
                    "repeat.weekdays has \"\(text.prefix(16))\", which is not a day: mon, tue, wed, thu, fri, sat or sun"
                )
            }
            self = day
        }

        /// The day of the week of `day` days since 1970 (a Thursday), in UTC.
        static func of(day: Int64) -> Weekday { allCases[Int(((day + 3) % 7 + 7) % 7)] }
    }

    enum CodingKeys: String, CodingKey {
        case until, weekdays
        case everyDays = "every_days"
    }

    static let maxEveryDays = 90
    static let day: Int64 = 86_400_000

    /// The time between copies, in ms; nil for a rhythm of weekdays.
    var every: Int64? { everyDays.map { Int64($0) * Self.day } }

    /// Checks the recurrence and what goes with it. A copy is an ordinary message made at its time:
    /// its audience read then, its own statistics; what decides one send's devices or versions (a
    /// trigger, an A/B test, a test send, a Live Activity) does not go with it.
    static func check(_ request: MessageRequest, first: Int64) throws(APIError) {
        guard let recurrence = request.recurrence else { return }
        switch (recurrence.everyDays, recurrence.weekdays) {
        case (let days?, nil):
            guard (1...maxEveryDays).contains(days) else {
                throw .badRequest("repeat.every_days must be 1 to \(maxEveryDays), not \(days)")
            }
        case (nil, let weekdays?):
            guard !weekdays.isEmpty else {
                throw .badRequest("repeat.weekdays is empty: name 1 to 7 days, mon to sun")
            }
            var seen: Set<Weekday> = []
            for day in weekdays where !seen.insert(day).inserted {
                throw .badRequest("repeat.weekdays names \(day.rawValue) twice: name each day once")
            }
        default:
            throw .badRequest(
                "repeat takes exactly one of every_days (a copy every N days) and weekdays (a copy on each day "
                    + "listed, mon to sun)")
        }
        if let until = recurrence.until {
            let start = recurrence.firstTime(first)
            guard until >= start else {
                throw .badRequest(
                    "repeat.until must be at or after the first time (send_at, or now; with weekdays, the first "
                        + "listed day at that time of day): \(until) is before \(start)")
            }
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

    /// The first copy's time for a message whose first time is `first`: that time itself every N
    /// days; with weekdays, the first listed day at or after it (UTC), at its time of day. nil when
    /// it would be after `until`.
    func start(_ first: Int64) -> Int64? { bounded(firstTime(first)) }

    /// ``start(_:)`` without `until`.
    private func firstTime(_ first: Int64) -> Int64 {
        guard weekdays != nil else { return first }
        return listed(fromDay: Self.days(first), at: LocalTimeOfDay.mod(first))
    }

    /// The time after `last` that is past `now` (times missed while no node ran are skipped, so the
    /// next copy goes at once and the one after it back in the rhythm); nil when it would be after
    /// `until`. A rhythm of weekdays keeps `last`'s time of day, in UTC.
    func next(after last: Int64, now: Int64) -> Int64? {
        if let every {
            let steps = max(1, (now - last) / every + 1)
            return bounded(last + steps * every)
        }
        let timeOfDay = LocalTimeOfDay.mod(last)
        // The first day whose time of day is past both `last` and `now`.
        return bounded(listed(fromDay: Self.days(max(last, now) - timeOfDay) + 1, at: timeOfDay))
    }

    /// `timeOfDay` on the first listed weekday at or after `day` (days since 1970).
    private func listed(fromDay day: Int64, at timeOfDay: Int64) -> Int64 {
        let days = Set(weekdays ?? Weekday.allCases)
        let ahead = (0..<7).first { days.contains(Weekday.of(day: day + Int64($0))) } ?? 0
        return (day + Int64(ahead)) * Self.day + timeOfDay
    }

    private func bounded(_ time: Int64) -> Int64? {
        if let until, time > until { return nil }
        return time
    }

    /// The day (since 1970, in UTC) `time` falls on.
    private static func days(_ time: Int64) -> Int64 { (time - LocalTimeOfDay.mod(time)) / day }
}
