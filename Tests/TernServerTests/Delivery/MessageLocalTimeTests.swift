import Foundation
import TernProtocol
import TernTestSupport
import Testing

@testable import TernServer

/// `local_time_of_day`: each device gets the message when its own clock (`_os_tz`) shows that
/// time, the first time at or after the send time; a device without a zone on UTC; on every
/// store, never handed straight to the senders; refused when malformed, with a throttle, or with a
/// time to live under a day.
@Suite struct MessageLocalTimeTests {
    static let hour: Int64 = 3_600_000

    @Test func eachZoneGetsItsNextNineOClock() throws {
        let nine = try LocalTimeOfDay("09:00")
        let sixThirty: Int64 = 1_798_785_000_000  // 1 January 2027, 06:30 UTC
        #expect(nine.due(from: sixThirty, zone: nil) == sixThirty + 5 * Self.hour / 2, "UTC: 09:00 is 2.5 h on")
        #expect(nine.due(from: sixThirty, zone: "+0000") == sixThirty + 5 * Self.hour / 2)
        #expect(nine.due(from: sixThirty, zone: "+0300") == sixThirty + 47 * Self.hour / 2, "09:30 there: tomorrow's")
        #expect(nine.due(from: sixThirty, zone: "-0530") == sixThirty + 8 * Self.hour, "01:00 there")
        #expect(nine.due(from: sixThirty, zone: "+1400") == sixThirty + 25 * Self.hour / 2, "20:30 there")
        #expect(nine.due(from: sixThirty, zone: "-1200") == sixThirty + 29 * Self.hour / 2, "18:30 yesterday there")
        #expect(nine.due(from: sixThirty, zone: "+0230") == sixThirty, "09:00 there now: at once")
        for unreadable in ["Europe/Moscow", "+1500", "+03:00", "0300", "+03a0", ""] {
            #expect(nine.due(from: sixThirty, zone: unreadable) == sixThirty + 5 * Self.hour / 2, "\(unreadable): UTC")
        }
        #expect(try LocalTimeOfDay("00:00").minutes == 0 && LocalTimeOfDay("23:59").minutes == 1439)
        for bad in ["9:00", "24:00", "09:60", "0900", "09:00:00", "-1:00", "ab:cd", "٠٩:٠٠"] {
            #expect(throws: APIError.self, "\(bad)") { try LocalTimeOfDay(bad) }
        }
    }

    @Test func quietHoursHoldADeviceUntilTheirEnd() throws {
        let sixThirty: Int64 = 1_798_785_000_000  // 1 January 2027, 06:30 UTC
        let night = try QuietHours(from: "22:00", to: "08:00")
        #expect(night.length == 10 * Self.hour)
        #expect(night.due(from: sixThirty, zone: "+0000") == sixThirty + 3 * Self.hour / 2, "06:30 there: 08:00")
        #expect(night.due(from: sixThirty, zone: "+0300") == sixThirty, "09:30 there: at once")
        #expect(night.due(from: sixThirty, zone: "-0530") == sixThirty + 7 * Self.hour, "01:00 there")
        #expect(night.due(from: sixThirty, zone: "+1530") == sixThirty + 3 * Self.hour / 2, "unreadable: UTC")
        #expect(night.due(from: sixThirty, zone: "+1530") == night.due(from: sixThirty, zone: nil))
        #expect(night.due(from: sixThirty, zone: "-0830") == sixThirty + 10 * Self.hour, "22:00 there: quiet")
        #expect(night.due(from: sixThirty, zone: "+0130") == sixThirty, "08:00 there: over")
        let lunch = try QuietHours(from: "12:00", to: "14:00")
        #expect(lunch.due(from: sixThirty, zone: "+0630") == sixThirty + Self.hour, "13:00 there")
        #expect(lunch.due(from: sixThirty, zone: "+0000") == sixThirty)
        #expect(throws: APIError.self) { try QuietHours(from: "22:00", to: "22:00") }
        #expect(throws: APIError.self) { try QuietHours(from: "10pm", to: "08:00") }
    }

    /// Sent tomorrow at 06:30 UTC with quiet hours 22:00–08:00: a device on UTC waits 1.5 hours,
    /// one on UTC+3 (09:30 there) gets it at once.
    @Test(arguments: StoreFactory.all)
    func aDeviceInItsQuietHoursGetsItWhenTheyEnd(factory: StoreFactory) async throws {
        let harness = try await DeliveryHarness.make(store: factory)
        defer { Task { await harness.finish() } }
        try await harness.subscribe("london", fields: ["_os_tz": "+0000"])
        try await harness.subscribe("moscow", fields: ["_os_tz": "+0300"])
        let today = harness.clock.milliseconds - harness.clock.milliseconds % 86_400_000
        let sendAt = today + 86_400_000 + 13 * Self.hour / 2
        let id = try await harness.send(
            ["type": "resource", "resource_id": harness.resourceId],
            extra: ["send_at": sendAt, "quiet_hours": ["from": "22:00", "to": "08:00"]])
        harness.clock.advance(seconds: Double(sendAt + 1_000 - harness.clock.milliseconds) / 1000)
        try await harness.engine.drain()
        #expect(harness.sentTokens == ["moscow"])
        harness.clock.advance(seconds: 1.5 * 3600)
        try await harness.engine.drain()
        #expect(harness.sentTokens == ["london", "moscow"])
        #expect(try await harness.stats(id)["done"] as? Bool == true)
    }

    @Test func quietHoursAreCheckedAndGoAlone() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.finish() } }
        try await harness.subscribe("device")
        let audience: [String: Any] = ["type": "resource", "resource_id": harness.resourceId]
        let night: [String: Any] = ["from": "22:00", "to": "08:00"]
        let cases: [([String: Any], String)] = [
            (["quiet_hours": ["from": "22:00", "to": "22:00"]], "quiet_hours.from and .to must differ"),
            (["quiet_hours": ["from": "10pm", "to": "08:00"]], "must be HH:MM on a 24-hour clock"),
            (["quiet_hours": night, "throttle_per_minute": 60], "quiet_hours does not go with throttle_per_minute"),
            (["quiet_hours": night, "local_time_of_day": "09:00"], "quiet_hours does not go with"),
            (["quiet_hours": night, "time_to_live": 3_600], "(36000 seconds): give at least that"),
        ]
        for (extra, reason) in cases {
            var json: [String: Any] = ["title": "Hi", "audience": audience]
            json.merge(extra) { _, new in new }
            let reply = try await harness.create(json)
            #expect(reply.status == 400 && reply.errorText.contains(reason), "\(extra): \(reply.errorText)")
        }
        let fine = try await harness.create(["title": "Hi", "audience": audience, "quiet_hours": night])
        #expect(fine.status == 201, "\(fine.errorText)")
    }

    /// The store queues each row at its subscription's time; a repeated device is skipped, and one
    /// the map does not name is due at once.
    @Test(arguments: StoreFactory.all)
    func theQueueHoldsEachDeliveryUntilItsSubscriptionsTime(factory: StoreFactory) async throws {
        let fixture = try await StoreFixture(factory)
        defer { Task { await fixture.finish() } }
        let subscriptions = try await StoreSuiteDeliveryTests.subscriptions(fixture, count: 4)
        let targets = StoreSuiteDeliveryTests.targets(subscriptions)
        let message = try await fixture.store.write {
            try $0.insertMessage(
                StoreSuiteDeliveryTests.message(
                    projectId: fixture.project.id, resourceId: fixture.resource.id, publicId: "m-local"))
        }
        let times: [Int64: Int64] = [
            subscriptions[0].id: 5_000, subscriptions[1].id: 9_000, subscriptions[2].id: 7_000,
        ]
        let written = try await fixture.store.write {
            try $0.insertDeliveries(
                messageId: message.id, targets: targets + [targets[1]], now: 1_000, timing: .bySubscription(times))
        }
        #expect(written == 4)
        #expect(try await fixture.store.read { try $0.nextDeliveryDue() } == 1_000)
        func claimed(at now: Int64) async throws -> [Int64] {
            try await fixture.store.write { try $0.claimDeliveries(limit: 100, now: now, leaseUntil: 1_000_000) }
                .map(\.subscriptionId)
        }
        #expect(try await claimed(at: 1_000) == [subscriptions[3].id], "not in the map: at once")
        #expect(try await claimed(at: 4_999).isEmpty)
        #expect(try await claimed(at: 5_000) == [subscriptions[0].id])
        #expect(try await claimed(at: 8_000) == [subscriptions[2].id])
        #expect(try await claimed(at: 9_000) == [subscriptions[1].id])
    }

    /// Sent tomorrow at 06:30 UTC for 09:00: UTC devices 2.5 hours on, UTC−5:30 8 hours on, UTC+3
    /// the next morning, 23.5 hours on.
    @Test(arguments: StoreFactory.all)
    func eachDeviceGetsItAtItsOwnTime(factory: StoreFactory) async throws {
        let harness = try await DeliveryHarness.make(store: factory)
        defer { Task { await harness.finish() } }
        try await harness.subscribe("utc")
        try await harness.subscribe("moscow", fields: ["_os_tz": "+0300"])
        try await harness.subscribe("mumbai-ish", fields: ["_os_tz": "-0530"])
        let today = harness.clock.milliseconds - harness.clock.milliseconds % 86_400_000
        let sendAt = today + 86_400_000 + 13 * Self.hour / 2
        let reply = try await harness.create([
            "title": "Good morning", "local_time_of_day": "09:00", "send_at": sendAt, "time_to_live": 86_400,
            "audience": ["type": "resource", "resource_id": harness.resourceId],
        ])
        try #require(reply.status == 201, "\(reply.errorText)")
        let id = try #require(reply.json["id"] as? String)
        #expect((reply.json["request"] as? [String: Any])?["local_time_of_day"] as? String == "09:00")

        func at(_ time: Int64) async throws -> [String] {
            harness.clock.advance(seconds: Double(time - harness.clock.milliseconds) / 1000)
            try await harness.engine.drain()
            return harness.sentTokens
        }
        #expect(try await at(sendAt + 1_000).isEmpty, "written at its send time, none due yet")
        #expect(try await harness.stats(id).int("queued") == 3)
        #expect(try await at(sendAt + 5 * Self.hour / 2 - 2_000) == [])
        #expect(try await at(sendAt + 5 * Self.hour / 2 + 1_000) == ["utc"])
        #expect(try await at(sendAt + 8 * Self.hour + 1_000) == ["mumbai-ish", "utc"])
        #expect(try await at(sendAt + 47 * Self.hour / 2 + 1_000) == ["moscow", "mumbai-ish", "utc"])
        let stats = try await harness.stats(id)
        #expect(stats.int("sent") == 3 && stats["done"] as? Bool == true, "\(stats)")
    }

    @Test func aLocalTimeIsNeverHandedStraightToTheSendersAndATestSendGoesAtOnce() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.finish() } }
        for index in 0..<3 { try await harness.subscribe("device-\(index)", fields: ["_os_tz": "+0100"]) }
        let audience: [String: Any] = ["type": "resource", "resource_id": harness.resourceId]
        let now = ServerClock.milliseconds()
        // Two hours on the devices' clocks (UTC+1), rounded down to the hour: not due on writing.
        let later = ((now + Self.hour) % LocalTimeOfDay.day / Self.hour + 2) % 24
        let reply = try await harness.create([
            "title": "Hi", "audience": audience, "send_at": now + 1_000,
            "local_time_of_day": String(format: "%02d:00", later),
        ])
        try #require(reply.status == 201, "\(reply.errorText)")
        let written = try await harness.server.store.write { tx in
            let message = try #require(try tx.messagesFanningOut(limit: 1, now: now + 2_000).first)
            return try FanOut().step(tx, message: message, now: now + 2_000, lease: FanOut.Lease(until: now + 60_000))
        }
        #expect(written.added == 3 && written.leased.isEmpty)

        let mark = try await harness.server.admin(
            "PUT", "/resources/\(harness.resourceId)/test-devices",
            json: ["subscription_id": "device-0", "is_test": true])
        try #require(mark.status == 200, "\(mark.errorText)")
        let test = try await harness.send(audience, extra: ["test": true, "local_time_of_day": "03:00"])
        try await harness.engine.drain()
        #expect(harness.sentTokens == ["device-0"])
        #expect(try await harness.stats(test).int("sent") == 1)
    }

    @Test func aMalformedTimeAThrottleOrAShortTimeToLiveIsRefused() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.finish() } }
        try await harness.subscribe("device")
        let audience: [String: Any] = ["type": "resource", "resource_id": harness.resourceId]
        let cases: [([String: Any], String)] = [
            (["local_time_of_day": "9am"], "local_time_of_day must be HH:MM on a 24-hour clock, like 09:00"),
            (["local_time_of_day": "24:00"], "not 24:00"),
            (["local_time_of_day": "09:00", "throttle_per_minute": 100], "do not go together"),
            (["local_time_of_day": "09:00", "time_to_live": 3_600], "give at least 86400 seconds, or leave it out"),
        ]
        for (extra, reason) in cases {
            var json: [String: Any] = ["title": "Hi", "audience": audience]
            json.merge(extra) { _, new in new }
            let reply = try await harness.create(json)
            #expect(reply.status == 400 && reply.errorText.contains(reason), "\(extra): \(reply.errorText)")
        }
        let fine = try await harness.create([
            "title": "Hi", "audience": audience, "local_time_of_day": "23:59", "time_to_live": 86_400,
        ])
        #expect(fine.status == 201, "\(fine.errorText)")
    }
}
