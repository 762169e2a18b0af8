import Foundation
import Testing

@testable import TernServer

/// The rhythm of a recurring message as a pure function: its first copy's time, and each next one
/// from the last and the clock, every N days or on days of the week (UTC).
@Suite struct MessageRecurrenceTests {
    static let hour: Int64 = 3_600_000
    static let day: Int64 = 86_400_000
    /// Monday 14 December 2026, 00:00 UTC.
    static let monday: Int64 = 1_797_206_400_000
    static let mondayAt8 = monday + 8 * hour
    static let thursdayAt8 = mondayAt8 + 3 * day
    static let nextMondayAt8 = mondayAt8 + 7 * day

    static func weekly(_ days: [MessageRecurrence.Weekday], until: Int64? = nil) -> MessageRecurrence {
        MessageRecurrence(weekdays: days, until: until)
    }

    @Test func daysOfTheWeekCountFromAThursdayIn1970() {
        #expect(MessageRecurrence.Weekday.of(day: 0) == .thu)
        #expect(MessageRecurrence.Weekday.of(day: Self.monday / Self.day) == .mon)
        #expect(MessageRecurrence.Weekday.of(day: Self.monday / Self.day + 6) == .sun)
        #expect(MessageRecurrence.Weekday.of(day: -1) == .wed)
    }

    @Test func theFirstCopyIsTheFirstListedDayAtOrAfterTheFirstTimeAtItsTimeOfDay() {
        let rhythm = Self.weekly([.thu, .mon])
        #expect(rhythm.start(Self.mondayAt8, local: false) == Self.mondayAt8, "a listed day: the first time itself")
        #expect(
            rhythm.start(Self.mondayAt8 + Self.day, local: false) == Self.thursdayAt8, "a Tuesday: the Thursday after")
        #expect(
            rhythm.start(Self.thursdayAt8 + Self.day, local: false) == Self.nextMondayAt8, "a Friday: across the week")
        #expect(
            rhythm.start(Self.mondayAt8 - 2 * Self.day + 90_123, local: false) == Self.mondayAt8 + 90_123, "to the ms")
        #expect(
            MessageRecurrence(everyDays: 7).start(Self.mondayAt8 + Self.day, local: false) == Self.mondayAt8 + Self.day)
    }

    @Test func eachNextCopyIsTheNextListedDayAcrossTheWeek() {
        let rhythm = Self.weekly([.mon, .thu])
        #expect(rhythm.next(after: Self.mondayAt8, now: Self.mondayAt8 + 1000, local: false) == Self.thursdayAt8)
        #expect(rhythm.next(after: Self.thursdayAt8, now: Self.thursdayAt8 + 1000, local: false) == Self.nextMondayAt8)
        #expect(
            Self.weekly([.sun]).next(
                after: Self.mondayAt8 + 6 * Self.day, now: Self.mondayAt8 + 6 * Self.day, local: false)
                == Self.mondayAt8 + 13 * Self.day, "one day a week: a week on")
        let everyDay = Self.weekly(MessageRecurrence.Weekday.allCases)
        #expect(everyDay.next(after: Self.mondayAt8, now: Self.mondayAt8, local: false) == Self.mondayAt8 + Self.day)
    }

    @Test func timesMissedAreSkippedAndTheNextIsBackInTheRhythm() {
        let rhythm = Self.weekly([.mon, .thu])
        // The runner came late for Monday's copy, before Thursday's time: Thursday's stays.
        #expect(rhythm.next(after: Self.mondayAt8, now: Self.thursdayAt8 - 60_000, local: false) == Self.thursdayAt8)
        // Thursday's time is now, or past: the copy made now stands for it; next Monday is next.
        #expect(rhythm.next(after: Self.mondayAt8, now: Self.thursdayAt8, local: false) == Self.nextMondayAt8)
        #expect(
            rhythm.next(after: Self.mondayAt8, now: Self.thursdayAt8 + 4 * Self.hour, local: false)
                == Self.nextMondayAt8)
        // Three weeks without a node: the next listed day after now, at the same time of day.
        #expect(
            rhythm.next(after: Self.mondayAt8, now: Self.mondayAt8 + 22 * Self.day, local: false) == Self.mondayAt8 + 24
                * Self.day)
        // Every N days is as it was: whole steps from the last time, past now.
        let daily = MessageRecurrence(everyDays: 1)
        #expect(
            daily.next(after: Self.mondayAt8, now: Self.mondayAt8 + 3 * Self.day + 10, local: false) == Self.mondayAt8
                + 4 * Self.day)
        #expect(
            MessageRecurrence(everyDays: 7).next(after: Self.mondayAt8, now: Self.mondayAt8, local: false)
                == Self.nextMondayAt8)
    }

    @Test func untilEndsTheRhythmAndIsItsLastTime() {
        let rhythm = Self.weekly([.mon, .thu], until: Self.thursdayAt8)
        #expect(
            rhythm.next(after: Self.mondayAt8, now: Self.mondayAt8, local: false) == Self.thursdayAt8,
            "until's own time goes")
        #expect(
            rhythm.next(after: Self.thursdayAt8, now: Self.thursdayAt8, local: false) == nil,
            "next Monday is past until")
        #expect(
            rhythm.next(after: Self.mondayAt8, now: Self.thursdayAt8 + 1, local: false) == nil,
            "missed up to until: none left")
        #expect(Self.weekly([.thu], until: Self.thursdayAt8 - 1).start(Self.mondayAt8, local: false) == nil)
        #expect(
            MessageRecurrence(everyDays: 2, until: Self.mondayAt8 + Self.day).next(
                after: Self.mondayAt8, now: 0, local: false)
                == nil)
    }

    /// Daylight saving time is no matter: the rhythm is in UTC, so each copy keeps the UTC time of
    /// day across a zone's change (Europe's clocks went forward on Sunday 29 March 2026).
    @Test func theTimeOfDayIsUTCsAcrossDaylightSavingTime() {
        let saturdayAt8 = 1_774_742_400_000 - Self.day + 8 * Self.hour
        let rhythm = Self.weekly([.sat, .sun, .mon])
        #expect(rhythm.next(after: saturdayAt8, now: saturdayAt8, local: false) == saturdayAt8 + Self.day)
        #expect(
            rhythm.next(after: saturdayAt8 + Self.day, now: saturdayAt8 + Self.day, local: false) == saturdayAt8 + 2
                * Self.day)
        #expect(
            rhythm.next(after: saturdayAt8 + 2 * Self.day, now: saturdayAt8 + 2 * Self.day, local: false)
                == saturdayAt8 + 7 * Self.day)
    }

    // With a local time, the days are each device's own: the copy for day D is made at D's
    // midnight at UTC+14 (D−1 10:00 UTC) and each device gets it on its own D.

    /// Sunday 13 December 2026, 10:00 UTC: Monday's copy time.
    static let mondaysCopy = monday - 14 * hour

    @Test func withALocalTimeADaysCopyIsMadeAtTenUTCTheDayBefore() {
        let rhythm = Self.weekly([.mon, .thu])
        #expect(rhythm.start(Self.mondaysCopy - 6 * Self.hour, local: true) == Self.mondaysCopy, "Sunday 04:00 UTC")
        #expect(rhythm.start(Self.mondaysCopy, local: true) == Self.mondaysCopy, "the copy time itself")
        #expect(rhythm.start(Self.mondaysCopy - 3 * Self.day, local: true) == Self.mondaysCopy, "a Thursday first")
        #expect(MessageRecurrence.localDay(ofCopyAt: Self.mondaysCopy) == Self.monday)
        #expect(MessageRecurrence.localDay(ofCopyAt: Self.mondaysCopy + 3 * Self.day) == Self.monday + 3 * Self.day)
        // Monday's, then Thursday's (Wednesday 10:00 UTC), then next Monday's, whatever the time of day.
        let thursdaysCopy = Self.mondaysCopy + 3 * Self.day
        #expect(rhythm.next(after: Self.mondaysCopy, now: Self.mondaysCopy + 1000, local: true) == thursdaysCopy)
        #expect(rhythm.next(after: thursdaysCopy, now: thursdaysCopy, local: true) == Self.mondaysCopy + 7 * Self.day)
        // A standing message's next time from before (Monday 08:00 UTC) moves on to the new rule.
        #expect(rhythm.next(after: Self.mondayAt8, now: Self.mondayAt8, local: true) == thursdaysCopy)
        // Missed while no node ran: the next copy time past now.
        #expect(
            rhythm.next(after: Self.mondaysCopy, now: thursdaysCopy + Self.hour, local: true)
                == Self.mondaysCopy + 7 * Self.day)
        #expect(Self.weekly([.mon], until: Self.mondaysCopy - 1).start(Self.mondaysCopy, local: true) == nil)
        // Without a local time, as before: the first time's UTC time of day on the listed day.
        #expect(rhythm.start(Self.mondaysCopy - 6 * Self.hour, local: false) == Self.monday + 4 * Self.hour)
    }

    /// The choice for a first time after this week's copy time (some zone's Monday has begun, or
    /// its 09:00 passed): the week's copy would be late there, so the rhythm starts at the next
    /// listed day's copy, next week's for Monday alone.
    @Test func aFirstTimeAfterTheWeeksCopyTimeWaitsForTheNextCopy() {
        let mondays = Self.weekly([.mon])
        let sundayEvening = Self.monday - 4 * Self.hour  // 20:00 UTC: Monday 09:00 has passed at UTC+13
        #expect(mondays.start(sundayEvening, local: true) == Self.mondaysCopy + 7 * Self.day)
        #expect(mondays.start(Self.mondaysCopy + 1, local: true) == Self.mondaysCopy + 7 * Self.day)
        #expect(mondays.start(Self.monday, local: true) == Self.mondaysCopy + 7 * Self.day, "Monday 00:00 UTC")
        #expect(Self.weekly([.mon, .thu]).start(Self.monday, local: true) == Self.mondaysCopy + 3 * Self.day)
    }

    /// Each device gets Monday's copy at 09:00 on its own Monday, from UTC+14 to UTC−12; a device
    /// without a zone on UTC; a copy made late goes at once where that time has passed.
    @Test func eachDeviceGetsTheCopyOnItsOwnDay() throws {
        let nine = try LocalTimeOfDay("09:00")
        let zones: [(String?, Int64)] = [
            ("+1400", -5 * Self.hour), ("+1000", -Self.hour), ("+0900", 0), ("+0000", 9 * Self.hour),
            (nil, 9 * Self.hour), ("-0500", 14 * Self.hour), ("-1200", 21 * Self.hour),
            ("+0530", 9 * Self.hour / 2 - Self.hour),
        ]
        for (zone, due) in zones {
            let time = nine.due(on: Self.monday, from: Self.mondaysCopy, zone: zone)
            #expect(time == Self.monday + due, "\(zone ?? "no zone")")
            let offset = Int64(LocalTimeOfDay.offsetMinutes(zone) ?? 0) * 60_000
            #expect(LocalTimeOfDay.sinceMidnight(time, zone: zone) == 9 * Self.hour)
            #expect(MessageRecurrence.Weekday.of(day: (time + offset) / Self.day) == .mon, "\(zone ?? "no zone")")
            #expect(
                time >= Self.mondaysCopy && time - Self.mondaysCopy <= MessageRecurrence.localSpread + 9 * Self.hour)
        }
        #expect(nine.due(on: Self.monday, from: Self.monday + Self.hour, zone: "+1000") == Self.monday + Self.hour)
        #expect(nine.due(on: Self.monday, from: Self.monday + Self.hour, zone: "-0500") == Self.monday + 14 * Self.hour)
    }
}
