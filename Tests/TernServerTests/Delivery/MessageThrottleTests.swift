import Foundation
import TernProtocol
import TernTestSupport
import Testing

@testable import TernServer

/// `throttle_per_minute`: a message's deliveries come due at most that many a minute from its send
/// time, a second's share together, across fan-out chunks and on every store; the fan-out never
/// hands a throttled chunk straight to the senders; cancelling closes the rest at once; the time
/// to live still counts from the send time; a rate out of range is refused.
@Suite struct MessageThrottleTests {
    @Test func aPaceGivesEachSecondItsShare() {
        let fast = DeliveryPace(start: 5_000, perMinute: 600, written: 0)
        #expect(
            (0..<25).map { fast.due($0) } == Array(repeating: 5_000, count: 10) + Array(repeating: 6_000, count: 10)
                + Array(repeating: 7_000, count: 5))
        let slow = DeliveryPace(start: 0, perMinute: 7, written: 2)
        // 60 / 7 = 8.57 s apart, each at the start of its second.
        #expect((0..<3).map { slow.due(offset: $0) } == [17_000, 25_000, 34_000])
        let fastest = DeliveryPace(start: 0, perMinute: 1_000_000, written: 0)
        #expect(fastest.due(16_666) == 0 && fastest.due(16_667) == 1_000)
    }

    /// The store puts each delivery at its place, the places going on in a later chunk, and claims
    /// only those due.
    @Test(arguments: StoreFactory.all)
    func theQueueHoldsEachDeliveryUntilItsSecond(factory: StoreFactory) async throws {
        let fixture = try await StoreFixture(factory)
        defer { Task { await fixture.finish() } }
        let subscriptions = try await StoreSuiteDeliveryTests.subscriptions(fixture, count: 7)
        let targets = StoreSuiteDeliveryTests.targets(subscriptions)
        let message = try await fixture.store.write {
            try $0.insertMessage(
                StoreSuiteDeliveryTests.message(
                    projectId: fixture.project.id, resourceId: fixture.resource.id, publicId: "m-paced"))
        }
        let pace = DeliveryPace(start: 10_000, perMinute: 120, written: 0)
        let written = try await fixture.store.write {
            // A repeated device takes no place.
            try $0.insertDeliveries(
                messageId: message.id, targets: Array(targets[0..<4]) + [targets[0]], now: 1_000, timing: .paced(pace))
        }
        #expect(written == 4)
        let next = DeliveryPace(start: 10_000, perMinute: 120, written: 4)
        #expect(
            try await fixture.store.write {
                try $0.insertDeliveries(
                    messageId: message.id, targets: Array(targets[4...]), now: 1_001, timing: .paced(next))
            } == 3)
        #expect(try await fixture.store.read { try $0.nextDeliveryDue() } == 10_000)

        func claim(at now: Int64) async throws -> Int {
            try await fixture.store.write { try $0.claimDeliveries(limit: 100, now: now, leaseUntil: 1_000_000) }.count
        }
        #expect(try await claim(at: 9_999) == 0, "nothing before the send time")
        #expect(try await claim(at: 10_000) == 2)
        #expect(try await claim(at: 10_999) == 0)
        #expect(try await claim(at: 11_000) == 2)
        #expect(try await fixture.store.read { try $0.nextDeliveryDue() } == 12_000)
        #expect(try await claim(at: 12_500) == 2, "the second chunk's first place is 4")
        #expect(try await claim(at: 13_000) == 1)
        #expect(try await claim(at: 60_000) == 0)
    }

    /// Through the API and the engine: 6 a minute is one every ten seconds, in chunks of two.
    @Test(arguments: StoreFactory.all)
    func aThrottledMessageSendsAtItsRate(factory: StoreFactory) async throws {
        var options = DeliveryEngine.Options()
        options.fanOut = FanOut(chunkSize: 2)
        // Frozen: its places are ten seconds apart, and a run stalled that long would send two at once.
        let harness = try await DeliveryHarness.make(options: options, store: factory, frozenClock: true)
        defer { Task { await harness.finish() } }
        for index in 0..<3 { try await harness.subscribe("device-\(index)") }
        let reply = try await harness.create([
            "title": "Drip", "throttle_per_minute": 6,
            "audience": ["type": "resource", "resource_id": harness.resourceId],
        ])
        try #require(reply.status == 201, "\(reply.errorText)")
        let id = try #require(reply.json["id"] as? String)
        #expect((reply.json["request"] as? [String: Any])?["throttle_per_minute"] as? Int == 6)

        try await harness.engine.drain()
        #expect(harness.sender.pushes.count == 1, "\(harness.sentTokens)")
        harness.clock.advance(seconds: 9)
        try await harness.engine.drain()
        #expect(harness.sender.pushes.count == 1)
        harness.clock.advance(seconds: 1.5)
        try await harness.engine.drain()
        #expect(harness.sender.pushes.count == 2)
        var stats = try await harness.stats(id)
        #expect(stats.int("queued") == 1 && stats["done"] as? Bool == false, "\(stats)")
        harness.clock.advance(seconds: 10)
        try await harness.engine.drain()
        #expect(harness.sentTokens == ["device-0", "device-1", "device-2"])
        stats = try await harness.stats(id)
        #expect(stats.int("sent") == 3 && stats["done"] as? Bool == true, "\(stats)")
    }

    /// The engine's fan-out writes a chunk leased when the senders have room; a throttled one is
    /// written queued, each delivery waiting for its place.
    @Test func aThrottledChunkIsNeverHandedStraightToTheSenders() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.finish() } }
        for index in 0..<3 { try await harness.subscribe("device-\(index)") }
        let audience: [String: Any] = ["type": "resource", "resource_id": harness.resourceId]
        for (rate, leased) in [(nil, 3), (60, 0)] as [(Int?, Int)] {
            var json: [String: Any] = [
                "title": "Hi", "audience": audience, "send_at": ServerClock.milliseconds() + 1_000,
            ]
            json["throttle_per_minute"] = rate
            let reply = try await harness.create(json)
            try #require(reply.status == 201, "\(reply.errorText)")
            let now = ServerClock.milliseconds() + 2_000
            let written = try await harness.server.store.write { tx in
                let message = try #require(try tx.messagesFanningOut(limit: 1, now: now).first)
                return try FanOut().step(tx, message: message, now: now, lease: FanOut.Lease(until: now + 60_000))
            }
            #expect(written.added == 3 && written.leased.count == leased, "rate \(String(describing: rate))")
        }
    }

    @Test(arguments: StoreFactory.all)
    func cancellingAThrottledMessageClosesWhatWaitsAtOnce(factory: StoreFactory) async throws {
        let harness = try await DeliveryHarness.make(store: factory)
        defer { Task { await harness.finish() } }
        for index in 0..<4 { try await harness.subscribe("device-\(index)") }
        let id = try await harness.send(
            ["type": "resource", "resource_id": harness.resourceId], extra: ["throttle_per_minute": 1])
        try await harness.engine.drain()
        #expect(harness.sender.pushes.count == 1)
        let cancelled = try await harness.server.admin("POST", "/messages/\(id)/cancel")
        #expect(cancelled.status == 200, "\(cancelled.errorText)")
        try await harness.engine.drain()
        #expect(harness.sender.pushes.count == 1, "the three waiting their minute closed unsent")
        let stats = try await harness.stats(id)
        #expect(stats.int("sent") == 1 && stats.int("failed") == 3 && stats["done"] as? Bool == true, "\(stats)")
        #expect(stats["failed_by_reason"] as? [String: Int] == [MessageCancelTests.reason: 3])
    }

    /// A device whose turn comes after the message's time to live closes as expired, unsent.
    @Test func aTurnAfterTheTimeToLiveExpires() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.finish() } }
        for index in 0..<3 { try await harness.subscribe("device-\(index)") }
        let id = try await harness.send(
            ["type": "resource", "resource_id": harness.resourceId],
            extra: ["throttle_per_minute": 2, "time_to_live": 45])
        try await harness.engine.drain()
        harness.clock.advance(seconds: 30.5)
        try await harness.engine.drain()
        harness.clock.advance(seconds: 30)
        try await harness.engine.drain()
        #expect(harness.sender.pushes.count == 2)
        let stats = try await harness.stats(id)
        #expect(stats.int("sent") == 2 && stats.int("failed") == 1 && stats["done"] as? Bool == true, "\(stats)")
        #expect(
            stats["failed_by_reason"] as? [String: Int] == ["expired: its time to live ran out before sending": 1],
            "\(stats)")
    }

    @Test func aRateOutOfRangeIsRefused() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.finish() } }
        try await harness.subscribe("device")
        let audience: [String: Any] = ["type": "resource", "resource_id": harness.resourceId]
        for rate in [0, -5, 1_000_001] {
            let reply = try await harness.create(["title": "Hi", "audience": audience, "throttle_per_minute": rate])
            #expect(reply.status == 400, "\(rate)")
            #expect(
                reply.errorText.contains("throttle_per_minute must be 1 to 1000000 deliveries a minute, not \(rate)"),
                "\(reply.errorText)")
        }
        let fastest = try await harness.create(["title": "Hi", "audience": audience, "throttle_per_minute": 1_000_000])
        #expect(fastest.status == 201, "\(fastest.errorText)")
        #expect(harness.sender.pushes.isEmpty)
    }
}
