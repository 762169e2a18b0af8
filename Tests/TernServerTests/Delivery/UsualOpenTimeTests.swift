import Foundation
import TernProtocol
import TernTestSupport
import Testing

@testable import TernServer

/// `at_usual_open_time`: each person's opens are counted by hour of day as they are reported, once
/// however many counters run; a message sent at each person's usual open time reaches each device
/// when that hour comes round (a minute within it from the subscription), a person with no opens at
/// once; it is refused with another timing or a short time to live; an erased person's counts go.
@Suite struct UsualOpenTimeTests {
    static let hour: Int64 = 3_600_000

    @Test func aDeviceIsDueWhenItsPersonsHourComesRound() {
        let sixThirty: Int64 = 1_798_785_000_000  // 1 January 2027, 06:30 UTC
        #expect(
            UsualOpenTime.due(from: sixThirty, hour: 19, subscriptionId: 42)
                == sixThirty + 25 * Self.hour / 2 + 42 * 60_000, "19:42")
        #expect(
            UsualOpenTime.due(from: sixThirty, hour: 6, subscriptionId: 10) == sixThirty + 47 * Self.hour / 2 + 600_000,
            "06:10 has passed: tomorrow's")
        #expect(UsualOpenTime.due(from: sixThirty, hour: 6, subscriptionId: 90) == sixThirty, "06:30 itself: at once")
        #expect(UsualOpenTime.due(from: sixThirty, hour: nil, subscriptionId: 42) == sixThirty, "no opens: at once")

        let arrived: Int64 = 1_798_785_000_000
        #expect(UsualOpenTime.hourOfOpen(time: arrived - 4 * Self.hour, receivedAt: arrived) == 2, "the device's time")
        #expect(
            UsualOpenTime.hourOfOpen(time: arrived - 8 * 24 * Self.hour, receivedAt: arrived) == 6, "too old: arrival")
        #expect(UsualOpenTime.hourOfOpen(time: arrived + Self.hour, receivedAt: arrived) == 6, "ahead: arrival")
        #expect(UsualOpenTime.hourOfOpen(time: 0, receivedAt: arrived) == 6)

        var counts = [Int64](repeating: 0, count: 24)
        #expect(UsualOpenTime.usual(counts) == nil)
        counts[20] = 2
        counts[3] = 2
        counts[7] = 1
        #expect(UsualOpenTime.usual(counts) == 3, "of hours level, the earliest")
    }

    /// Yesterday one person opened at 19:05 UTC and another at 03:10; a third opened nothing.
    /// Sent tomorrow at 06:30 UTC, the third gets it at once, the first at 19:xx, the second at
    /// 03:xx the day after.
    @Test(arguments: StoreFactory.all)
    func eachPersonGetsItAtTheirUsualHour(factory: StoreFactory) async throws {
        let harness = try await DeliveryHarness.make(store: factory)
        defer { Task { await harness.finish() } }
        var profiles: [String: String] = [:]
        for token in ["evening", "night", "new"] { profiles[token] = try await harness.subscribe(token) }
        _ = try await harness.send(["type": "resource", "resource_id": harness.resourceId])
        while try await harness.engine.drain() > 0 {}
        let today = ServerClock.milliseconds() - ServerClock.milliseconds() % 86_400_000
        let yesterday = today - 86_400_000
        let opens: [String: Int64] = [
            "evening": yesterday + 19 * Self.hour + 300_000, "night": yesterday + 3 * Self.hour + 600_000,
        ]
        for push in harness.sender.pushes {
            guard let time = opens[push.token] else { continue }
            let pushId = try MessageVariantTests.shown(push).pushId
            let reply = try await harness.server.sdk(
                .eventPush, ["events": [["message_id": pushId, "type": "open", "time": time]]])
            try #require(reply.status == 200, "\(reply.errorText)")
        }

        // The first pass notes where the reports end; the next counts them, once for two counters.
        let counter = OpenHourCounter(
            store: harness.server.store, logger: Logger(minimum: .error, sink: { _ in }), metrics: harness.metrics)
        #expect(try await counter.pass() == 0)
        async let first = counter.pass()
        async let second = counter.pass()
        #expect(try await first + second == 2)
        #expect(try await counter.pass() == 0)
        #expect(harness.metrics.render().contains("tern_opens_counted_total 2\n"))
        let export = try await harness.server.admin("GET", "/profiles/\(try #require(profiles["evening"]))/export")
        let byHour = try #require(export.json["opens_by_hour"] as? [Int], "\(export.json)")
        #expect(byHour.count == 24 && byHour[19] == 1 && byHour.reduce(0, +) == 1)
        #expect((export.json["profile"] as? [String: Any])?["usual_open_hour"] as? Int == 19)
        let newcomer = try await harness.server.admin("GET", "/profiles/\(try #require(profiles["new"]))")
        #expect(newcomer.status == 200 && newcomer.json["usual_open_hour"] == nil, "\(newcomer.json)")

        let sendAt = today + 86_400_000 + 13 * Self.hour / 2
        let reply = try await harness.create([
            "title": "When you like", "at_usual_open_time": true, "send_at": sendAt,
            "audience": ["type": "resource", "resource_id": harness.resourceId],
        ])
        try #require(reply.status == 201, "\(reply.errorText)")
        let id = try #require(reply.json["id"] as? String)
        #expect((reply.json["request"] as? [String: Any])?["at_usual_open_time"] as? Bool == true)
        let before = harness.sender.pushes.count
        var sent: [String] { harness.sender.pushes.dropFirst(before).map(\.token).sorted() }
        harness.clock.advance(seconds: Double(sendAt + 1_000 - harness.clock.milliseconds) / 1000)
        while try await harness.engine.drain() > 0 {}
        #expect(sent == ["new"], "no opens: at once")
        harness.clock.advance(seconds: 12.5 * 3600 - 2)
        while try await harness.engine.drain() > 0 {}
        #expect(sent == ["new"], "19:00 not yet")
        harness.clock.advance(seconds: 3600)
        while try await harness.engine.drain() > 0 {}
        #expect(sent == ["evening", "new"])
        harness.clock.advance(seconds: 9 * 3600)
        while try await harness.engine.drain() > 0 {}
        #expect(sent == ["evening", "new", "night"])
        #expect(try await harness.stats(id)["done"] as? Bool == true)

        // An erased person's counts go with them.
        let erased = try await harness.server.admin("DELETE", "/profiles/\(try #require(profiles["evening"]))")
        try #require(erased.status == 200, "\(erased.errorText)")
        let left = try await harness.server.store.read { tx in
            try integerRows(tx, "SELECT COUNT(*) FROM open_hours", [])[0][0]
        }
        #expect(left == 1)
    }

    @Test func itGoesAloneAndWithADaysTimeToLive() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.finish() } }
        for (extra, reason) in [
            (["throttle_per_minute": 100], "at_usual_open_time does not go with throttle_per_minute"),
            (["local_time_of_day": "09:00"], "does not go with"),
            (["quiet_hours": ["from": "22:00", "to": "08:00"]], "does not go with"),
            (["time_to_live": 3_600], "give at least 86400 seconds"),
        ] as [([String: Any], String)] {
            var json: [String: Any] = [
                "title": "Hi", "at_usual_open_time": true,
                "audience": ["type": "resource", "resource_id": harness.resourceId],
            ]
            json.merge(extra) { _, new in new }
            let reply = try await harness.create(json)
            #expect(reply.status == 400 && reply.errorText.contains(reason), "\(reply.status) \(reply.errorText)")
        }
    }
}
