import Foundation
import TernProtocol

/// A message's `repeat`: the message stands, and a copy of it goes to its audience as it is then,
/// a message of its own (`recurring_of` names this one), at each time of its rhythm until `until`
/// or until it is cancelled. The rhythm is one of two: every `every_days` from its first time (its
/// `send_at`, or when it is made), or on each of the `weekdays` listed, at the first time's time of
/// day, in UTC.
///
/// With `weekdays` and `local_time_of_day`, the days are each device's own: the copy for a listed
/// day D is made at D's midnight at UTC+14, the earliest zone a device reports (D−1 10:00 UTC,
/// 14 hours before D's midnight in UTC), and carries D (`local_day`), so each device gets it
/// at the local time on its own D, from UTC+14 to UTC−12. The first time's time of day then only
/// picks the week's first copy: the first whose copy time is at or after it.
///
/// ```json
/// {"title": "This week's picks", "body": "Five new recipes",
///  "repeat": {"weekdays": ["mon", "thu"]}, "send_at": 1765184400000, "local_time_of_day": "09:00",
///  "audience": {"type": "segment", "segment_id": 3}}
/// ```
public struct MessageRecurrence: Codable, Sendable, Equatable {
    /// Days from one time to the next: 1 (daily) to 90; nil with ``weekdays``.
    public var everyDays: Int?
    /// The days of the week a copy goes, in UTC, or with `local_time_of_day` on each device's own
    /// calendar (1 to 7 of them, each once); nil with ``everyDays``.
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

    /// A copy on each of `weekdays` (UTC), at the first time's time of day; with the message's
    /// `local_time_of_day`, on each device's own day at that time.
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
    /// With a local time, how long before a listed day's midnight in UTC its copy is made: 14
    /// hours, so the copy comes at that day's midnight at UTC+14, the earliest zone a device
    /// reports (``LocalTimeOfDay/offsetMinutes(_:)`` takes none further east).
    static let localLead: Int64 = 14 * 3_600_000
    /// With a local time, the longest a device may wait for a copy, less the time of day: from
    /// the copy's time to its day's midnight at UTC−12, the latest zone (14 + 12 hours).
    static let localSpread: Int64 = localLead + 12 * 3_600_000

    /// The listed day a copy made by the local rule at `copyAt` (its scheduled time, not when a
    /// node came to make it) is for, as that day's midnight in UTC (ms since 1970): the one place
    /// a copy's day comes from its time. A time of the local rule is always ``localLead`` before
    /// its day's midnight.
    static func localDay(ofCopyAt copyAt: Int64) -> Int64 { days(copyAt + localLead) * day }

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
            let start = recurrence.firstTime(first, local: request.repeatsOnLocalDays)
            guard until >= start else {
                throw .badRequest(
                    "repeat.until must be at or after the first time (send_at, or now; with weekdays, the first "
                        + "listed day at that time of day, or with local_time_of_day 10:00 UTC the day before it): "
                        + "\(until) is before \(start)")
            }
        }
        if request.repeatsOnLocalDays, let text = request.localTimeOfDay, let ttl = request.timeToLive {
            let least = (localSpread + Int64(try LocalTimeOfDay(text).minutes) * 60_000) / 1000
            guard ttl >= least else {
                throw .badRequest(
                    "with repeat.weekdays and local_time_of_day a device gets each copy at \(text) on its own day, up "
                        + "to \(least) seconds after the copy is made (10:00 UTC the day before, for UTC+14, to \(text) "
                        + "at UTC-12), and time_to_live counts from then: give at least \(least) seconds, or leave it out"
                )
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
    /// days; with weekdays, the first listed day at or after it (UTC), at its time of day; with
    /// weekdays and a local time (`local`), the first listed day's copy time (``localLead`` before
    /// its midnight in UTC) at or after it. nil when it would be after `until`.
    func start(_ first: Int64, local: Bool) -> Int64? { bounded(firstTime(first, local: local)) }

    /// ``start(_:local:)`` without `until`.
    func firstTime(_ first: Int64, local: Bool) -> Int64 {
        guard weekdays != nil else { return first }
        if local {
            // The first day whose copy time is at or after `first`.
            return listed(fromDay: Self.days(first + Self.localLead + Self.day - 1), at: 0) - Self.localLead
        }
        return listed(fromDay: Self.days(first), at: LocalTimeOfDay.mod(first))
    }

    /// The time after `last` that is past `now` (times missed while no node ran are skipped, so the
    /// next copy goes at once and the one after it back in the rhythm); nil when it would be after
    /// `until`. A rhythm of weekdays keeps `last`'s time of day, in UTC; with a local time
    /// (`local`), the next listed day's copy time, whatever `last`'s time of day.
    func next(after last: Int64, now: Int64, local: Bool) -> Int64? {
        if let every {
            let steps = max(1, (now - last) / every + 1)
            return bounded(last + steps * every)
        }
        if local {
            // The first day whose copy time is past both `last` and `now`.
            return bounded(listed(fromDay: Self.days(max(last, now) + Self.localLead) + 1, at: 0) - Self.localLead)
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

extension MessageRequest {
    /// A rhythm of weekdays on each device's own calendar: `repeat.weekdays` with
    /// `local_time_of_day` (``MessageRecurrence``'s local rule), decided here for the first copy,
    /// the next, an edit and the copy's `local_day`.
    var repeatsOnLocalDays: Bool { recurrence?.weekdays != nil && localTimeOfDay != nil }
}
