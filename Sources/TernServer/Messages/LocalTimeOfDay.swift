import Foundation
import TernProtocol

/// A message sent at a time of day on each device's own clock (`local_time_of_day`): each device
/// gets it the first time its clock shows that time at or after the message's send time, so
/// within a day of it. A device's clock is its subscription's `_os_tz` field (`+0300`), which the
/// SDK sends with every subscribe and every session's `device/report`; a device without one is
/// taken to be on UTC.
///
/// ```swift
/// let nine = try LocalTimeOfDay("09:00")
/// // Sent at 06:30 UTC: 09:00 in Moscow is 06:00 UTC, passed, so tomorrow's; 09:00 UTC is today's.
/// nine.due(from: sixThirtyUTC, zone: "+0300")   // sixThirtyUTC + 23.5 h
/// nine.due(from: sixThirtyUTC, zone: nil)       // sixThirtyUTC + 2.5 h
/// ```
struct LocalTimeOfDay: Sendable, Equatable {
    /// The subscription field that holds a device's offset from UTC.
    static let zoneField = DeviceReportRequest.timeZoneKey
    static let day: Int64 = 86_400_000

    /// Minutes since the local midnight.
    let minutes: Int

    /// `HH:MM` on a 24-hour clock.
    init(_ text: String) throws(APIError) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, parts.allSatisfy({ $0.count == 2 && $0.allSatisfy(\.isASCII) }),
            let hours = Int(parts[0]), let minutes = Int(parts[1]), (0..<24).contains(hours), (0..<60).contains(minutes)
        else {
            throw .badRequest(
                "local_time_of_day must be HH:MM on a 24-hour clock, like 09:00 or 18:30, not \(text.prefix(32))")
        }
        self.minutes = hours * 60 + minutes
    }

    /// When a device in `zone` (`+0300`, `-0530`; nil or unreadable: UTC) gets a message sent at
    /// `start` (ms since 1970).
    func due(from start: Int64, zone: String?) -> Int64 {
        start + Self.mod(Int64(minutes) * 60_000 - Self.sinceMidnight(start, zone: zone))
    }

    /// When a device in `zone` (nil or unreadable: UTC) gets a copy for `day` (its midnight in
    /// UTC, ms since 1970) of a weekly message (``MessageRequest/localDay``): this time on that
    /// day by its own clock, or `start` (the copy's send time) when that has passed.
    func due(on day: Int64, from start: Int64, zone: String?) -> Int64 {
        max(start, day + Int64(minutes) * 60_000 - Int64(Self.offsetMinutes(zone) ?? 0) * 60_000)
    }

    /// The milliseconds since midnight a device in `zone` (nil or unreadable: UTC) has at `time`.
    static func sinceMidnight(_ time: Int64, zone: String?) -> Int64 {
        mod(time + Int64(offsetMinutes(zone) ?? 0) * 60_000)
    }

    /// `value` brought into one day, 0 up to ``day``.
    static func mod(_ value: Int64) -> Int64 { (value % day + day) % day }

    /// The offset `±HHMM` names, in minutes east of UTC; nil when it is not one (UTC−12:00 to +14:00).
    static func offsetMinutes(_ zone: String?) -> Int? {
        guard let zone, zone.utf8.count == 5, let sign = zone.first, sign == "+" || sign == "-",
            zone.dropFirst().allSatisfy({ $0.isASCII && $0.isNumber }),
            let hours = Int(zone.dropFirst().prefix(2)), let minutes = Int(zone.suffix(2)), minutes < 60
        else { return nil }
        let offset = (sign == "-" ? -1 : 1) * (hours * 60 + minutes)
        return (-12 * 60...14 * 60).contains(offset) ? offset : nil
    }
}

/// A message's quiet hours (`quiet_hours`): a device whose own clock is between `from` and `to`
/// at the send time (the span may cross midnight) gets the message when its clock reaches `to`;
/// every other device at once.
///
/// ```swift
/// let night = try QuietHours(from: "22:00", to: "08:00")
/// night.due(from: sixThirtyUTC, zone: "+0000")   // 06:30 there, quiet: sixThirtyUTC + 1.5 h
/// night.due(from: sixThirtyUTC, zone: "+0300")   // 09:30 there: at once
/// ```
struct QuietHours: Sendable, Equatable {
    let from: LocalTimeOfDay
    let to: LocalTimeOfDay

    init(_ request: MessageRequest.QuietHours) throws(APIError) {
        try self.init(from: request.from, to: request.to)
    }

    init(from: String, to: String) throws(APIError) {
        do {
            self.from = try LocalTimeOfDay(from)
            self.to = try LocalTimeOfDay(to)
        } catch {
            throw .badRequest(
                "quiet_hours.from and .to must be HH:MM on a 24-hour clock, like 22:00 and 08:00, not \(from.prefix(16)) "
                    + "and \(to.prefix(16))")
        }
        guard self.from != self.to else {
            throw .badRequest("quiet_hours.from and .to must differ (\(from) to \(to) is no quiet time or all of it)")
        }
    }

    /// How long the quiet time lasts, in milliseconds: the longest a device waits.
    var length: Int64 { Int64((to.minutes - from.minutes + 1440) % 1440) * 60_000 }

    /// When a device in `zone` (`+0300`; nil or unreadable: UTC) gets a message sent at `start`.
    func due(from start: Int64, zone: String?) -> Int64 {
        let sinceFrom = LocalTimeOfDay.mod(
            LocalTimeOfDay.sinceMidnight(start, zone: zone) - Int64(from.minutes) * 60_000)
        return sinceFrom < length ? start + length - sinceFrom : start
    }
}
