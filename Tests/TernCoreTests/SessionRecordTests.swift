import Foundation
import Testing

@testable import TernCore

@Suite("Sessions are counted from foreground time")
struct SessionRecordTests {
    let t0 = Date(timeIntervalSince1970: 1_700_000_000)

    @Test func aFirstForegroundStartsTheFirstSession() {
        let record = SessionRecord().enteringForeground(at: t0, timeout: 1800)
        #expect(record.count == 1 && record.first == t0 && record.last == t0)
        #expect(record.fields(now: t0.addingTimeInterval(42))["_foreground_time"] == 42)
    }

    @Test func aShortTripToTheBackgroundKeepsTheSession() {
        let record = SessionRecord().enteringForeground(at: t0, timeout: 1800)
            .enteringBackground(at: t0.addingTimeInterval(60))
            .enteringForeground(at: t0.addingTimeInterval(120), timeout: 1800)
            .enteringBackground(at: t0.addingTimeInterval(150))
        #expect(record.count == 1)
        #expect(record.foregroundSeconds == 90)
        #expect(record.last == t0)
    }

    @Test func aLongAbsenceStartsANewSession() {
        let later = t0.addingTimeInterval(4000)
        let record = SessionRecord().enteringForeground(at: t0, timeout: 1800)
            .enteringBackground(at: t0.addingTimeInterval(10))
            .enteringForeground(at: later, timeout: 1800)
        #expect(record.count == 2 && record.first == t0 && record.last == later)
        let fields = record.fields(now: later.addingTimeInterval(5))
        #expect(fields["_session_count"] == 2)
        #expect(fields["_foreground_time"] == 15)
        #expect(fields["_first_session"] == .int(Int64(t0.timeIntervalSince1970 * 1000)))
        #expect(fields["_last_session"] == .int(Int64(later.timeIntervalSince1970 * 1000)))
    }

    @Test func repeatedSignalsChangeNothing() {
        let once = SessionRecord().enteringForeground(at: t0, timeout: 1800)
        #expect(once.enteringForeground(at: t0.addingTimeInterval(5), timeout: 1800) == once)
        #expect(SessionRecord().enteringBackground(at: t0) == SessionRecord())
    }
}
