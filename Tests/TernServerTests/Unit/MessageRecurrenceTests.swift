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
        #expect(rhythm.start(Self.mondayAt8) == Self.mondayAt8, "a listed day: the first time itself")
        #expect(rhythm.start(Self.mondayAt8 + Self.day) == Self.thursdayAt8, "a Tuesday: the Thursday after")
        #expect(rhythm.start(Self.thursdayAt8 + Self.day) == Self.nextMondayAt8, "a Friday: across the week")
        #expect(rhythm.start(Self.mondayAt8 - 2 * Self.day + 90_123) == Self.mondayAt8 + 90_123, "to the ms")
        #expect(MessageRecurrence(everyDays: 7).start(Self.mondayAt8 + Self.day) == Self.mondayAt8 + Self.day)
    }

    @Test func eachNextCopyIsTheNextListedDayAcrossTheWeek() {
        let rhythm = Self.weekly([.mon, .thu])
        #expect(rhythm.next(after: Self.mondayAt8, now: Self.mondayAt8 + 1000) == Self.thursdayAt8)
        #expect(rhythm.next(after: Self.thursdayAt8, now: Self.thursdayAt8 + 1000) == Self.nextMondayAt8)
        #expect(
            Self.weekly([.sun]).next(after: Self.mondayAt8 + 6 * Self.day, now: Self.mondayAt8 + 6 * Self.day)
                == Self.mondayAt8 + 13 * Self.day, "one day a week: a week on")
        let everyDay = Self.weekly(MessageRecurrence.Weekday.allCases)
        #expect(everyDay.next(after: Self.mondayAt8, now: Self.mondayAt8) == Self.mondayAt8 + Self.day)
    }

    @Test func timesMissedAreSkippedAndTheNextIsBackInTheRhythm() {
        let rhythm = Self.weekly([.mon, .thu])
        // The runner came late for Monday's copy, before Thursday's time: Thursday's stays.
        #expect(rhythm.next(after: Self.mondayAt8, now: Self.thursdayAt8 - 60_000) == Self.thursdayAt8)
        // Thursday's time is now, or past: the copy made now stands for it; next Monday is next.
        #expect(rhythm.next(after: Self.mondayAt8, now: Self.thursdayAt8) == Self.nextMondayAt8)
        #expect(rhythm.next(after: Self.mondayAt8, now: Self.thursdayAt8 + 4 * Self.hour) == Self.nextMondayAt8)
        // Three weeks without a node: the next listed day after now, at the same time of day.
        #expect(
            rhythm.next(after: Self.mondayAt8, now: Self.mondayAt8 + 22 * Self.day) == Self.mondayAt8 + 24 * Self.day)
        // Every N days is as it was: whole steps from the last time, past now.
        let daily = MessageRecurrence(everyDays: 1)
        #expect(
            daily.next(after: Self.mondayAt8, now: Self.mondayAt8 + 3 * Self.day + 10) == Self.mondayAt8 + 4 * Self.day)
        #expect(MessageRecurrence(everyDays: 7).next(after: Self.mondayAt8, now: Self.mondayAt8) == Self.nextMondayAt8)
    }

    @Test func untilEndsTheRhythmAndIsItsLastTime() {
        let rhythm = Self.weekly([.mon, .thu], until: Self.thursdayAt8)
        #expect(rhythm.next(after: Self.mondayAt8, now: Self.mondayAt8) == Self.thursdayAt8, "until's own time goes")
        #expect(rhythm.next(after: Self.thursdayAt8, now: Self.thursdayAt8) == nil, "next Monday is past until")
        #expect(rhythm.next(after: Self.mondayAt8, now: Self.thursdayAt8 + 1) == nil, "missed up to until: none left")
        #expect(Self.weekly([.thu], until: Self.thursdayAt8 - 1).start(Self.mondayAt8) == nil)
        #expect(
            MessageRecurrence(everyDays: 2, until: Self.mondayAt8 + Self.day).next(after: Self.mondayAt8, now: 0)
                == nil)
    }

    /// Daylight saving time is no matter: the rhythm is in UTC, so each copy keeps the UTC time of
    /// day across a zone's change (Europe's clocks went forward on Sunday 29 March 2026).
    @Test func theTimeOfDayIsUTCsAcrossDaylightSavingTime() {
        let saturdayAt8 = 1_774_742_400_000 - Self.day + 8 * Self.hour
        let rhythm = Self.weekly([.sat, .sun, .mon])
        #expect(rhythm.next(after: saturdayAt8, now: saturdayAt8) == saturdayAt8 + Self.day)
        #expect(rhythm.next(after: saturdayAt8 + Self.day, now: saturdayAt8 + Self.day) == saturdayAt8 + 2 * Self.day)
        #expect(
            rhythm.next(after: saturdayAt8 + 2 * Self.day, now: saturdayAt8 + 2 * Self.day)
                == saturdayAt8 + 7 * Self.day)
    }
}
