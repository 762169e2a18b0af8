import Foundation
import TernProtocol
import TernTestSupport
import Testing

@testable import TernServer

/// The durable outbox: claims under a lease, outcomes only from the claim that holds the row, and a
/// crash mid-send that loses nothing and resends only what was in flight.
@Suite struct OutboxTests {
    @Test func aClaimHoldsDeliveriesUntilItsLeaseRunsOut() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.finish() } }
        for index in 0..<3 { try await harness.subscribe("device-\(index)") }
        _ = try await harness.send(["type": "resource", "resource_id": harness.resourceId])
        let store = harness.server.store
        let now = harness.clock.milliseconds
        let first = try await store.write { try $0.claimDeliveries(limit: 2, now: now, leaseUntil: now + 60_000) }
        try #require(first.count == 2)
        #expect(first.allSatisfy { $0.attempt == 1 })
        let second = try await store.write { try $0.claimDeliveries(limit: 10, now: now, leaseUntil: now + 60_000) }
        try #require(second.count == 1)
        #expect(Set(second.map(\.id)).isDisjoint(with: first.map(\.id)))
        let none = try await store.write { try $0.claimDeliveries(limit: 10, now: now + 59_999, leaseUntil: now + 1) }
        #expect(none.isEmpty)

        let sentOne = try await store.write {
            try $0.updateDelivery(
                DeliveryUpdate(id: first[0].id, messageId: first[0].messageId, attempt: 1, status: .sent), now: now)
        }
        #expect(sentOne)
        // The lease of the others runs out: they are claimed again, with the next attempt number.
        let later = now + 60_000
        let again = try await store.write { try $0.claimDeliveries(limit: 10, now: later, leaseUntil: later + 60_000) }
        #expect(Set(again.map(\.id)) == Set([first[1].id, second[0].id]))
        #expect(again.allSatisfy { $0.attempt == 2 })
        // The first claim's late answer changes nothing now.
        let stale = try await store.write {
            try $0.updateDelivery(
                DeliveryUpdate(
                    id: first[1].id, messageId: first[1].messageId, attempt: 1, status: .failed, reason: "late"),
                now: later)
        }
        #expect(!stale)
        // A delivery recorded sent is never claimed again.
        let never = try await store.write {
            try $0.claimDeliveries(limit: 10, now: later + 1_000_000, leaseUntil: later + 2_000_000)
        }
        #expect(!never.map(\.id).contains(first[0].id))
    }

    @Test func aMessageSentDuringACampaignGoesOutInTheNextBatchesNotAfterIt() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.finish() } }
        var profiles: [String] = []
        for index in 0..<30 { profiles.append(try await harness.subscribe("device-\(index)")) }
        _ = try await harness.send(["type": "resource", "resource_id": harness.resourceId])
        let store = harness.server.store
        // The message service stamps deliveries with the real clock: each claim looks at "now".
        func claim(_ limit: Int) async throws -> [ClaimedDelivery] {
            let now = harness.clock.milliseconds
            return try await store.write { try $0.claimDeliveries(limit: limit, now: now, leaseUntil: now + 60_000) }
        }
        let leasedFrom = harness.clock.milliseconds
        let campaign = try await claim(5)
        try #require(campaign.count == 5)
        let campaignId = campaign[0].messageId
        // A small message comes while the campaign has 25 deliveries waiting.
        _ = try await harness.send(["type": "profiles", "profile_ids": Array(profiles.prefix(3))])
        let first = try await claim(4)
        let second = try await claim(4)
        let small = (first + second).filter { $0.messageId != campaignId }
        #expect(small.count == 3, "the small message's three deliveries within two batches: \(first + second)")
        #expect(first.filter { $0.messageId != campaignId }.count == 2, "half the first batch")
        #expect((first + second).count == 8, "the campaign fills what the small message leaves")
        // The campaign goes on alone, and the outbox knows when it is next due: the first lease's end.
        #expect(try await claim(100).count == 30 - 5 - 5)
        #expect(try await claim(100).isEmpty)
        let next = try #require(try await store.read { try $0.nextDeliveryDue() })
        #expect(next >= leasedFrom + 60_000 && next <= harness.clock.milliseconds + 60_000)
    }

    @Test func aRetryIsDueAtItsOwnTimeNotAtTheLeasesEnd() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.finish() } }
        try await harness.subscribe("device-1")
        _ = try await harness.send(["type": "resource", "resource_id": harness.resourceId])
        let store = harness.server.store
        let now = harness.clock.milliseconds
        let claimed = try await store.write { try $0.claimDeliveries(limit: 10, now: now, leaseUntil: now + 60_000) }
        try #require(claimed.count == 1)
        #expect(try await store.read { try $0.nextDeliveryDue() } == now + 60_000)
        let retried = try await store.write {
            try $0.updateDelivery(
                DeliveryUpdate(
                    id: claimed[0].id, messageId: claimed[0].messageId, attempt: 1, status: .queued, reason: "APNs 503",
                    dueAt: now + 1_000),
                now: now)
        }
        #expect(retried)
        #expect(try await store.read { try $0.nextDeliveryDue() } == now + 1_000)
        let again = try await store.write {
            try $0.claimDeliveries(limit: 10, now: now + 1_000, leaseUntil: now + 61_000)
        }
        #expect(again.map(\.attempt) == [2])
        _ = try await store.write {
            try $0.updateDelivery(
                DeliveryUpdate(id: claimed[0].id, messageId: claimed[0].messageId, attempt: 2, status: .sent),
                now: now + 1_000)
        }
        // Nothing is left to send: once a claim finds that, nothing is due any more.
        #expect(
            try await store.write { try $0.claimDeliveries(limit: 10, now: now + 61_000, leaseUntil: now + 1) }.isEmpty)
        #expect(try await store.read { try $0.nextDeliveryDue() } == nil)
    }

    @Test func aCrashMidSendLosesNothingAndResendsOnlyWhatWasInFlight() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.finish() } }
        for index in 0..<20 { try await harness.subscribe("device-\(index)") }
        let id = try await harness.send(["type": "resource", "resource_id": harness.resourceId])

        // The first process: its own connection to the same file, batches of 5, one at a time; the
        // third batch never comes back before the "crash".
        var options = DeliveryEngine.Options()
        options.batchSize = 5
        options.concurrency = 1
        options.lease = 30
        options.stopGrace = .milliseconds(50)
        let crashingStore = try SQLiteStore(path: harness.server.directory.path("tern.sqlite"))
        let crashingSender = RecordingSender()
        crashingSender.hold(afterBatches: 2)
        let crashing = DeliveryEngine(
            store: crashingStore, senders: SenderRegistry([crashingSender]), metrics: Metrics(),
            logger: Logger(minimum: .error, sink: { _ in }), options: options, clock: harness.clock.function)
        await crashing.start()
        for _ in 0..<1000 where crashingSender.batches.count < 3 { try await Task.sleep(for: .milliseconds(5)) }
        try #require(crashingSender.batches.count == 3)
        await crashingStore.close()  // the process dies: nothing more is claimed or recorded
        crashingSender.release()
        await crashing.stop()

        let before = try await harness.stats(id)
        #expect(before.int("sent") == 10)
        #expect(before.int("sending") == 5)
        #expect(before.int("queued") == 5)

        // The restarted process: the lease runs out, and it picks up where the first left off.
        harness.clock.advance(seconds: 31)
        try await harness.engine.drain()
        let sentBefore = Set(crashingSender.batches.prefix(2).joined().map(\.token))
        let inFlight = Set(crashingSender.batches[2].map(\.token))
        let resent = harness.sender.pushes.map(\.token)
        #expect(Set(resent).isDisjoint(with: sentBefore), "a delivery recorded sent was sent again")
        #expect(resent.count == Set(resent).count)
        #expect(inFlight.isSubset(of: Set(resent)))
        #expect(sentBefore.union(resent) == Set((0..<20).map { "device-\($0)" }))
        let after = try await harness.stats(id)
        #expect(after.int("sent") == 20)
        #expect(after["done"] as? Bool == true)
    }

    @Test func theFunnelCountsDeliveriesAndOpensReportedByDevices() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.finish() } }
        for index in 0..<3 { try await harness.subscribe("device-\(index)") }
        harness.sender.script("device-2", [.failed(reason: "BadTopic")])
        let id = try await harness.send(["type": "resource", "resource_id": harness.resourceId])
        let other = try await harness.send(["type": "token", "provider": "ios-apns", "token": "device-0"])
        try await harness.engine.drain()
        func pushId(_ token: String, _ message: String) throws -> String {
            let push = try #require(harness.sender.pushes.first { $0.token == token && $0.messageId == message })
            let json = try #require(try JSONSerialization.jsonObject(with: push.payload) as? [String: Any])
            return try #require((json["tern"] as? [String: Any])?["message_id"] as? String)
        }
        let events: [[String: Any]] = [
            ["message_id": try pushId("device-0", id), "type": "delivery", "time": 1],
            ["message_id": try pushId("device-1", id), "type": "delivery", "time": 1],
            ["message_id": try pushId("device-0", id), "type": "open", "time": 2],
            ["message_id": try pushId("device-0", other), "type": "delivery", "time": 3],
        ]
        for (index, event) in events.enumerated() {
            // Each twice: a device's retry is counted once.
            for _ in 0..<2 {
                let reply = try await harness.server.sdk(.eventPush, ["events": [event]], key: "event-\(index)")
                try #require(reply.status == 200, "\(reply.errorText)")
            }
        }
        let stats = try await harness.stats(id)
        #expect(stats["message_id"] as? String == id)
        #expect(stats.int("targeted") == 3)
        #expect(stats.int("sent") == 2)
        #expect(stats.int("failed") == 1)
        #expect((stats["failed_by_reason"] as? [String: Int]) == ["BadTopic": 1])
        #expect(stats.int("delivered") == 2)
        #expect(stats.int("opened") == 1)
        #expect(try await harness.stats(other).int("delivered") == 1)
    }
}
