import Foundation
import TernProtocol
import TernTestSupport
import Testing

@testable import TernServer

/// Recurring messages: the message stands, and each time its copy goes to the audience as an
/// ordinary message naming it; each time makes one copy however many runners look, times missed
/// are skipped, `until` ends it, cancelling stops the copies to come.
@Suite struct RecurrenceTests {
    /// `fanOut`: how the copy's fan-out is cut; the engine writes the chunks after the first.
    static func runner(_ harness: DeliveryHarness, fanOut: FanOut = FanOut()) -> RecurrenceRunner {
        RecurrenceRunner(
            messages: MessageService(store: harness.server.store, fanOut: fanOut, clock: harness.clock.function),
            logger: Logger(minimum: .error, sink: { _ in }))
    }

    static let day: Double = 86_400

    @Test(arguments: StoreFactory.all)
    func eachTimeACopyGoesToTheAudienceOnceUntilCancelled(factory: StoreFactory) async throws {
        let harness = try await DeliveryHarness.make(store: factory)
        defer { Task { await harness.finish() } }
        try await harness.subscribe("phone-a")
        let reply = try await harness.create([
            "title": "Today's picks", "repeat": ["every_days": 1],
            "audience": ["type": "resource", "resource_id": harness.resourceId],
        ])
        try #require(reply.status == 201, "\(reply.status) \(reply.errorText)")
        let id = try #require(reply.json["id"] as? String)
        #expect(reply.json["done"] as? Bool == false, "a recurring message stands")
        #expect(reply.json["next_copy_at"] as? Int64 != nil)
        while try await harness.engine.drain() > 0 {}
        #expect(harness.sender.pushes.isEmpty, "the message itself sends nothing")

        let runner = Self.runner(harness)
        let first = try await runner.pass()
        try #require(first.count == 1)
        #expect(first[0].recurringOf == id && first[0].id != id)
        #expect(try await runner.pass().isEmpty, "not again before its next time")
        try await harness.subscribe("phone-b")  // read at the next copy's time
        harness.clock.advance(seconds: Self.day + 1)
        async let one = runner.pass()
        async let two = runner.pass()
        let second = try await one + two
        #expect(second.count == 1, "one copy a time, however many runners look")
        while try await harness.engine.drain() > 0 {}
        #expect(harness.sentTokens == ["phone-a", "phone-a", "phone-b"])
        let copies = harness.sender.pushes.map { String($0.messageId) }
        #expect(Set(copies) == Set([first[0].id] + second.map(\.id)))

        let cancelled = try await harness.server.admin("POST", "/messages/\(id)/cancel")
        #expect(cancelled.status == 200, "\(cancelled.errorText)")
        #expect(cancelled.json["next_copy_at"] == nil)
        #expect(cancelled.json["done"] as? Bool == true)
        harness.clock.advance(seconds: 3 * Self.day)
        #expect(try await runner.pass().isEmpty, "no copy after the cancel")
    }

    @Test(arguments: StoreFactory.all)
    func timesMissedAreSkippedAndUntilEndsIt(factory: StoreFactory) async throws {
        let harness = try await DeliveryHarness.make(store: factory)
        defer { Task { await harness.finish() } }
        try await harness.subscribe("phone-a")
        let start = ServerClock.milliseconds()
        let reply = try await harness.create([
            "title": "Weekly", "repeat": ["every_days": 1, "until": start + 4 * 86_400_000 + 60_000],
            "audience": ["type": "resource", "resource_id": harness.resourceId],
        ])
        try #require(reply.status == 201, "\(reply.errorText)")
        let id = try #require(reply.json["id"] as? String)
        let runner = Self.runner(harness)
        #expect(try await runner.pass().count == 1)
        // No node ran for three days: one copy now, and the next time is tomorrow's, not three.
        harness.clock.advance(seconds: 3 * Self.day + 10)
        #expect(try await runner.pass().count == 1)
        #expect(try await runner.pass().isEmpty)
        harness.clock.advance(seconds: Self.day)
        #expect(try await runner.pass().count == 1, "the day of until")
        harness.clock.advance(seconds: Self.day)
        #expect(try await runner.pass().isEmpty, "past until")
        let shown = try await harness.server.admin("GET", "/messages/\(id)")
        #expect(shown.json["next_copy_at"] == nil && shown.json["done"] as? Bool == true, "\(shown.json)")
    }

    @Test(arguments: StoreFactory.all)
    func eachCopyReadsItsSegmentAsItIsThen(factory: StoreFactory) async throws {
        let harness = try await DeliveryHarness.make(store: factory)
        defer { Task { await harness.finish() } }
        try await harness.subscribe("gold-phone", fields: ["plan": "gold"])
        try await harness.subscribe("free-phone", fields: ["plan": "free"])
        let project = harness.server.bootstrap.projectId
        let made = try await harness.server.admin(
            "POST", "/segments",
            json: [
                "project_id": project, "name": "gold", "filter": ["field": "fields.plan", "op": "=", "value": "gold"],
            ])
        try #require(made.status == 201, "\(made.errorText)")
        let segment = try #require(made.json["id"] as? Int)
        let reply = try await harness.create([
            "title": "For our members", "repeat": ["every_days": 1],
            "audience": ["type": "segment", "segment_id": segment],
        ])
        try #require(reply.status == 201, "\(reply.errorText)")
        let runner = Self.runner(harness)
        #expect(try await runner.pass().count == 1)
        while try await harness.engine.drain() > 0 {}
        #expect(harness.sentTokens == ["gold-phone"])
        // The segment is edited: the next copy goes to whom it matches then.
        let edited = try await harness.server.admin(
            "PATCH", "/segments/\(segment)", json: ["filter": ["field": "fields.plan", "op": "=", "value": "free"]])
        try #require(edited.status == 200, "\(edited.errorText)")
        harness.clock.advance(seconds: Self.day + 1)
        #expect(try await runner.pass().count == 1)
        while try await harness.engine.drain() > 0 {}
        #expect(harness.sentTokens == ["free-phone", "gold-phone"])
    }

    /// Moves the runner's and the engine's clock on to `time` (ms since 1970).
    static func advance(_ harness: DeliveryHarness, to time: Int64) {
        harness.clock.advance(seconds: Double(time - harness.clock.milliseconds) / 1000)
    }

    /// Tomorrow at 08:00 UTC, and the days of the week that are one and three days after it.
    static func tomorrowAtEight() -> (first: Int64, listed: [MessageRecurrence.Weekday]) {
        let day: Int64 = 86_400_000
        let first = (ServerClock.milliseconds() / day + 1) * day + 8 * 3_600_000
        let days = MessageRecurrence.Weekday.allCases
        let index = days.firstIndex(of: MessageRecurrence.Weekday.of(day: first / day)) ?? 0
        return (first, [days[(index + 3) % 7], days[(index + 1) % 7]])
    }

    @Test(arguments: StoreFactory.all)
    func onWeekdaysACopyGoesOnEachListedDayAtTheFirstTimesTimeOfDay(factory: StoreFactory) async throws {
        let harness = try await DeliveryHarness.make(store: factory)
        defer { Task { await harness.finish() } }
        try await harness.subscribe("phone-utc", fields: ["_os_tz": "+0000"])
        let day: Int64 = 86_400_000
        // A first time on a day the message does not list; its days given out of order.
        let (first, listed) = Self.tomorrowAtEight()
        let reply = try await harness.create([
            "title": "Digest", "repeat": ["weekdays": listed.map(\.rawValue), "until": first + 10 * day + 60_000],
            "send_at": first, "audience": ["type": "resource", "resource_id": harness.resourceId],
        ])
        try #require(reply.status == 201, "\(reply.status) \(reply.errorText)")
        let id = try #require(reply.json["id"] as? String)
        #expect(reply.json.int("next_copy_at") == first + day, "the first listed day at the first time's time of day")
        let asked = (reply.json["request"] as? [String: Any])?["repeat"] as? [String: Any]
        #expect(
            asked?["weekdays"] as? [String] == listed.map(\.rawValue) && asked?["every_days"] == nil, "\(reply.json)")

        let runner = Self.runner(harness)
        #expect(try await runner.pass().isEmpty, "not before its first listed day")
        Self.advance(harness, to: first + day + 1000)
        let copy = try await runner.pass()
        try #require(copy.count == 1)
        #expect(copy[0].recurringOf == id)
        // Without a local time, the days and the time of day are UTC's, and the copy goes at once.
        while try await harness.engine.drain() > 0 {}
        #expect(harness.sentTokens == ["phone-utc"])
        var shown = try await harness.server.admin("GET", "/messages/\(id)")
        #expect(shown.json.int("next_copy_at") == first + 3 * day, "the other listed day, the same week")

        // No node ran for a week: one copy now, and the next is the rhythm's next listed day.
        Self.advance(harness, to: first + 9 * day)
        #expect(try await runner.pass().count == 1)
        #expect(try await runner.pass().isEmpty)
        shown = try await harness.server.admin("GET", "/messages/\(id)")
        #expect(shown.json.int("next_copy_at") == first + 10 * day, "\(shown.json)")
        Self.advance(harness, to: first + 10 * day + 1000)
        #expect(try await runner.pass().count == 1, "the day of until")
        shown = try await harness.server.admin("GET", "/messages/\(id)")
        #expect(shown.json["next_copy_at"] == nil && shown.json["done"] as? Bool == true, "\(shown.json)")
    }

    /// A weekly message at 09:00 on each device's clock: its copy for Monday D is made at D−1 10:00
    /// UTC (D's midnight at UTC+14) and carries D, and each device gets it at 09:00 of its own
    /// Monday, from UTC+14 to UTC−12 (without a zone, UTC's), none before.
    @Test(arguments: StoreFactory.all)
    func withALocalTimeEachDeviceGetsTheCopyOnItsOwnListedDay(factory: StoreFactory) async throws {
        let harness = try await DeliveryHarness.make(store: factory, frozenClock: true)
        defer { Task { await harness.finish() } }
        let day: Int64 = 86_400_000
        let hour: Int64 = 3_600_000
        // Monday offsets from D's midnight in UTC at which each gets its copy (09:00 there).
        let devices: [(token: String, zone: String?, due: Int64)] = [
            ("kiritimati", "+1400", -5 * hour), ("sydney", "+1000", -hour), ("tokyo", "+0900", 0),
            ("london", "+0000", 9 * hour), ("no-zone", nil, 9 * hour), ("new-york", "-0500", 14 * hour),
            ("baker-island", "-1200", 21 * hour),
        ]
        for device in devices {
            try await harness.subscribe(device.token, fields: device.zone.map { ["_os_tz": $0] } ?? [:])
        }
        // The first Monday whose copy time (10:00 UTC the day before) is not past.
        let now = harness.clock.milliseconds
        var monday = (now / day + 1) * day
        while MessageRecurrence.Weekday.of(day: monday / day) != .mon || monday - 14 * hour < now { monday += day }
        let reply = try await harness.create([
            "title": "Monday morning digest", "repeat": ["weekdays": ["mon"]], "local_time_of_day": "09:00",
            "time_to_live": 126_000, "audience": ["type": "resource", "resource_id": harness.resourceId],
        ])
        try #require(reply.status == 201, "\(reply.status) \(reply.errorText)")
        let id = try #require(reply.json["id"] as? String)
        #expect(reply.json.int("next_copy_at") == monday - 14 * hour, "Sunday 10:00 UTC")

        // The copy writes two devices' deliveries; the engine writes the rest later from the stored
        // copy, as another node or one restarted would.
        let runner = Self.runner(harness, fanOut: FanOut(chunkSize: 2))
        Self.advance(harness, to: monday - 14 * hour - 60_000)
        #expect(try await runner.pass().isEmpty, "not before its copy time")
        Self.advance(harness, to: monday - 14 * hour)
        let copies = try await runner.pass()
        try #require(copies.count == 1)
        let copy = try await harness.server.admin("GET", "/messages/\(copies[0].id)")
        let request = try #require(copy.json["request"] as? [String: Any])
        #expect(request.int("local_day") == monday && request["repeat"] == nil, "\(request)")
        let shown = try await harness.server.admin("GET", "/messages/\(id)")
        #expect(shown.json.int("next_copy_at") == monday + 7 * day - 14 * hour, "next week's copy time")
        #expect(try await harness.stats(copies[0].id).int("targeted") == 2, "the first chunk only")

        var sent: [String] = []
        for due in Set(devices.map(\.due)).sorted() {
            let these = devices.filter { $0.due == due }.map(\.token)
            Self.advance(harness, to: monday + due - 60_000)
            while try await harness.engine.drain() > 0 {}
            #expect(harness.sentTokens == sent.sorted(), "\(these): not before 09:00 on their Monday")
            Self.advance(harness, to: monday + due)
            while try await harness.engine.drain() > 0 {}
            sent += these
            #expect(harness.sentTokens == sent.sorted(), "\(these): at 09:00 on their Monday")
        }
        #expect(try await harness.stats(copies[0].id)["done"] as? Bool == true)
    }

    @Test func whatDoesNotGoWithRepeatIsRefusedByName() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.finish() } }
        let audience: [String: Any] = ["type": "resource", "resource_id": harness.resourceId]
        let (first, listed) = Self.tomorrowAtEight()
        for (body, fragment) in [
            (["repeat": ["every_days": 0]], "repeat.every_days must be 1 to 90"),
            (["repeat": ["every_days": 91]], "repeat.every_days must be 1 to 90"),
            (["repeat": ["every_days": 1, "until": 5]], "repeat.until must be at or after the first time"),
            (["repeat": ["every_days": 1], "test": true], "test does not go with repeat"),
            (
                ["repeat": ["every_days": 7, "weekdays": ["mon"]]],
                "repeat takes exactly one of every_days (a copy every N days) and weekdays"
            ),
            (["repeat": ["until": first + 86_400_000]], "repeat takes exactly one of every_days"),
            (["repeat": ["weekdays": [String]()]], "repeat.weekdays is empty"),
            (["repeat": ["weekdays": ["mon", "thu", "mon"]]], "repeat.weekdays names mon twice"),
            (["repeat": ["weekdays": ["monday"]]], "repeat.weekdays has \"monday\", which is not a day"),
            (["repeat": ["weekdays": ["Mon"]]], "repeat.weekdays has \"Mon\", which is not a day"),
            (
                ["repeat": ["weekdays": [listed[1].rawValue], "until": first + 3_600_000], "send_at": first],
                "repeat.until must be at or after the first time"
            ),
            (
                ["repeat": ["every_days": 1], "trigger": ["event_name": "x"]],
                "does not go with"
            ),
            (
                ["repeat": ["weekdays": ["mon"]], "local_time_of_day": "09:00", "time_to_live": 125_999],
                "time_to_live counts from then: give at least 126000 seconds"
            ),
            (
                ["repeat": ["weekdays": ["mon"]], "local_time_of_day": "23:30", "time_to_live": 86_400],
                "give at least 178200 seconds"
            ),
            (["local_day": 1_797_206_400_000, "local_time_of_day": "09:00"], "local_day is set by the server"),
        ] as [([String: Any], String)] {
            var json = body
            json["title"] = "Hi"
            json["audience"] = audience
            let reply = try await harness.create(json)
            #expect(reply.status == 400, "\(body)")
            #expect(reply.errorText.contains(fragment), "\(reply.errorText)")
        }
    }
}
