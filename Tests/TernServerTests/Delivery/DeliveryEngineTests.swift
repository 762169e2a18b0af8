import Foundation
import Synchronization
import TernProtocol
import Testing

@testable import TernServer

/// The engine: every delivery sent once with its own payload, outcomes recorded, retries that
/// honour Retry-After, token hygiene, and the loop's start and stop.
@Suite struct DeliveryEngineTests {
    @Test func everyDeliveryIsSentOnceWithItsOwnPushIdAndRecorded() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.finish() } }
        for index in 0..<3 { try await harness.subscribe("device-\(index)") }
        let id = try await harness.send(
            ["type": "resource", "resource_id": harness.resourceId],
            extra: ["collapse_id": "c1", "time_to_live": 60, "priority": 10, "topic": "com.example.app"])
        let createdAt = try await harness.server.admin("GET", "/messages/\(id)").json.int("created_at")
        #expect(try await harness.engine.drain() == 3)
        #expect(try await harness.engine.drain() == 0)
        let pushes = harness.sender.pushes
        #expect(pushes.count == 3)
        for push in pushes {
            #expect(push.messageId == id)
            #expect(push.provider == .apns)
            #expect(push.projectId == harness.server.bootstrap.projectId)
            #expect(push.pushType == .alert)
            #expect(push.priority == 10)
            #expect(push.collapseId == "c1")
            #expect(push.topic == "com.example.app")
            #expect(push.environment == .production)
            let expiration = try #require(push.expiration)
            #expect(Int64((expiration.timeIntervalSince1970 * 1000).rounded()) == createdAt + 60_000)
            let json = try #require(try JSONSerialization.jsonObject(with: push.payload) as? [String: Any])
            let tern = try #require(json["tern"] as? [String: Any])
            #expect(tern["message_id"] as? String == "\(id).\(push.deliveryId)")
        }
        let rows = try await harness.deliveries(id)
        #expect(rows.map { $0["status"] as? String } == ["sent", "sent", "sent"])
        #expect(rows.allSatisfy { ($0["provider_message_id"] as? String)?.hasPrefix("apns-") == true })
        #expect(rows.allSatisfy { $0.int("attempts") == 1 })
        let stats = try await harness.stats(id)
        #expect(stats.int("sent") == 3)
        #expect(stats["done"] as? Bool == true)
        #expect(harness.metrics.deliveryCount(provider: .apns, outcome: "sent") == 3)
        #expect(
            harness.metrics.render().contains(
                #"tern_push_deliveries_total{provider="ios-apns",outcome="sent",reason=""} 3"#))
    }

    @Test func aRetryWaitsForRetryAfterAndThenSucceeds() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.finish() } }
        try await harness.subscribe("busy")
        harness.sender.script(
            "busy", [.retry(after: 30, reason: "429 TooManyRequests"), .sent(providerMessageId: "ok")])
        let id = try await harness.send(["type": "token", "provider": "ios-apns", "token": "busy"])
        #expect(try await harness.engine.drain() == 1)
        var row = try #require(try await harness.deliveries(id).first)
        #expect(row["status"] as? String == "queued")
        #expect(row["reason"] as? String == "retrying: 429 TooManyRequests")
        // The harness's clock is the real one plus what the test adds: 10 s of margin either side
        // for a loaded machine between the drains.
        harness.clock.advance(seconds: 20)
        #expect(try await harness.engine.drain() == 0)
        harness.clock.advance(seconds: 20)
        #expect(try await harness.engine.drain() == 1)
        row = try #require(try await harness.deliveries(id).first)
        #expect(row["status"] as? String == "sent")
        #expect(row.int("attempts") == 2)
        #expect(row["reason"] is NSNull || row["reason"] == nil)
        #expect(harness.metrics.render().contains(#"outcome="retry",reason="429 TooManyRequests"} 1"#))
    }

    @Test func onlyARetryDrawsTheJitterThatSpreadsItsDelay() async throws {
        let draws = Mutex(0)
        let harness = try await DeliveryHarness.make(jitter: {
            draws.withLock { $0 += 1 }
            return 1
        })
        defer { Task { await harness.finish() } }
        try await harness.subscribe("busy")
        try await harness.subscribe("fine")
        harness.sender.script("busy", [.retry(after: nil, reason: "APNs 503 ServiceUnavailable")])
        let busy = try await harness.send(["type": "token", "provider": "ios-apns", "token": "busy"])
        let fine = try await harness.send(["type": "token", "provider": "ios-apns", "token": "fine"])
        #expect(try await harness.engine.drain() == 2)
        #expect(try await harness.deliveries(fine).first?["status"] as? String == "sent")
        let row = try #require(try await harness.deliveries(busy).first)
        #expect(row["status"] as? String == "queued")
        // The first retry waits 2 s, spread by the jitter's 1 to 2.4 s (0.8 + 0.4 × jitter).
        let due = try #require(try await harness.server.store.read { try $0.nextDeliveryDue() })
        #expect(due - row.int("updated_at") == 2_400)
        #expect(draws.withLock { $0 } == 1, "a sent delivery drew a random number")
    }

    @Test func permanentFailuresAreCountedByReason() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.finish() } }
        for token in ["big-1", "big-2", "topic", "fine"] { try await harness.subscribe(token) }
        harness.sender.script("big-1", [.failed(reason: "PayloadTooLarge")])
        harness.sender.script("big-2", [.failed(reason: "PayloadTooLarge")])
        harness.sender.script("topic", [.failed(reason: "TopicDisallowed")])
        let id = try await harness.send(["type": "resource", "resource_id": harness.resourceId])
        try await harness.engine.drain()
        let stats = try await harness.stats(id)
        #expect(stats.int("targeted") == 4)
        #expect(stats.int("sent") == 1)
        #expect(stats.int("failed") == 3)
        #expect((stats["failed_by_reason"] as? [String: Int]) == ["PayloadTooLarge": 2, "TopicDisallowed": 1])
    }

    @Test func aProviderWithoutASenderFailsWithAReason() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.finish() } }
        try await harness.subscribe("hms", provider: "ios-huawei")
        let id = try await harness.send(["type": "token", "provider": "ios-huawei", "token": "hms"])
        try await harness.engine.drain()
        let row = try #require(try await harness.deliveries(id).first)
        #expect(row["status"] as? String == "failed")
        #expect(
            row["reason"] as? String == "no sender for provider ios-huawei: configure its credentials for the project")
    }

    @Test func anInvalidTokenIsMarkedAndTheNextSubscribeBringsItBack() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.finish() } }
        try await harness.subscribe("gone", time: 1000)
        harness.sender.script("gone", [.invalidToken(reason: "Unregistered", since: Date())])
        let first = try await harness.send(["type": "token", "provider": "ios-apns", "token": "gone"])
        try await harness.engine.drain()
        let stats = try await harness.stats(first)
        #expect(stats.int("invalid_token") == 1)
        let mark = try await harness.server.store.read {
            try $0.invalidTokenMark(provider: .apns, token: "gone")?.reason
        }
        #expect(mark == "Unregistered")

        _ = try await harness.send(["type": "token", "provider": "ios-apns", "token": "gone"])
        try await harness.engine.drain()
        #expect(harness.sender.pushes.count == 1)

        try await Task.sleep(for: .milliseconds(5))
        try await harness.subscribe("gone", time: 2000)
        harness.sender.script("gone", [.sent(providerMessageId: "back")])
        let third = try await harness.send(["type": "token", "provider": "ios-apns", "token": "gone"])
        try await harness.engine.drain()
        #expect(harness.sender.pushes.count == 2)
        #expect(try await harness.stats(third).int("sent") == 1)
    }

    @Test func aTokenRegisteredAgainAfterTheProvidersMomentIsNotMarked() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.finish() } }
        try await harness.subscribe("renewed")
        harness.sender.script("renewed", [.invalidToken(reason: "Unregistered", since: Date(timeIntervalSince1970: 1))])
        let id = try await harness.send(["type": "token", "provider": "ios-apns", "token": "renewed"])
        try await harness.engine.drain()
        #expect(try await harness.stats(id).int("invalid_token") == 1)
        let mark = try await harness.server.store.read {
            try $0.invalidTokenMark(provider: .apns, token: "renewed")
        }
        #expect(mark == nil)
        _ = try await harness.send(["type": "token", "provider": "ios-apns", "token": "renewed"])
        try await harness.engine.drain()
        #expect(harness.sender.pushes.count == 2)
    }

    @Test func aSubscriptionSuspendedAfterTheFanOutIsNotSent() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.finish() } }
        try await harness.subscribe("leaving", time: 1000)
        let id = try await harness.send(["type": "token", "provider": "ios-apns", "token": "leaving"])
        try await harness.subscribe("leaving", endpoint: .pushSuspend, time: 2000)
        try await harness.engine.drain()
        #expect(harness.sender.pushes.isEmpty)
        let row = try #require(try await harness.deliveries(id).first)
        #expect(row["status"] as? String == "failed")
        #expect(row["reason"] as? String == "the subscription was suspended before sending")
    }

    @Test func aRetryOnTheLastAttemptIsCountedAsTheFailureItIsRecorded() async throws {
        var options = DeliveryEngine.Options()
        options.retry = DeliveryRetryPolicy(maxAttempts: 1)
        let harness = try await DeliveryHarness.make(options: options)
        defer { Task { await harness.finish() } }
        try await harness.subscribe("down")
        harness.sender.script("down", [.retry(after: nil, reason: "APNs 503 ServiceUnavailable")])
        let id = try await harness.send(["type": "token", "provider": "ios-apns", "token": "down"])
        #expect(try await harness.engine.drain() == 1)
        #expect(try await harness.deliveries(id).first?["status"] as? String == "failed")
        #expect(harness.metrics.deliveryCount(provider: .apns, outcome: "failed") == 1)
        #expect(harness.metrics.deliveryCount(provider: .apns, outcome: "retry") == 0)
    }

    @Test func anExpiredMessageIsNotSent() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.finish() } }
        try await harness.subscribe("late")
        let id = try await harness.send(
            ["type": "token", "provider": "ios-apns", "token": "late"], extra: ["time_to_live": 10])
        harness.clock.advance(seconds: 11)
        try await harness.engine.drain()
        #expect(harness.sender.pushes.isEmpty)
        #expect(
            try await harness.deliveries(id).first?["reason"] as? String
                == "expired: its time to live ran out before sending")
    }

    /// A message to the harness's resource through a `MessageService` that wakes the running engine,
    /// as `tern serve` creates one.
    static func sendToTheResource(_ harness: DeliveryHarness, fanOut: FanOut = FanOut()) async throws
        -> (MessageService, MessageView)
    {
        let engine = harness.engine
        let service = MessageService(store: harness.server.store, fanOut: fanOut, queued: { engine.wake() })
        let request = try JSONDecoder().decode(
            MessageRequest.self,
            from: JSONSerialization.data(withJSONObject: [
                "title": "Hi", "audience": ["type": "resource", "resource_id": harness.resourceId],
            ]))
        return (service, try await service.create(request))
    }

    /// The fan-out goes on while the batches in flight wait for their provider: it has a loop of its
    /// own. (When one loop ran a fan-out chunk before each claim, a batch held at the provider held the
    /// fan-out too, after one more chunk.)
    @Test func theFanOutGoesOnWhileEveryBatchWaitsForItsProvider() async throws {
        var options = DeliveryEngine.Options()
        options.batchSize = 2
        options.concurrency = 1
        options.fanOut = FanOut(chunkSize: 2)
        let harness = try await DeliveryHarness.make(options: options)
        defer { Task { await harness.finish() } }
        for index in 0..<12 { try await harness.subscribe("device-\(index)") }
        harness.sender.hold()
        await harness.engine.start()
        let (service, view) = try await Self.sendToTheResource(harness, fanOut: options.fanOut)
        var message = try await service.message(publicId: view.id)
        #expect(!message.fanOutDone, "the first chunk only is written with the message")
        for _ in 0..<1000 where !message.fanOutDone || harness.sender.batches.isEmpty {
            try await Task.sleep(for: .milliseconds(10))
            message = try await service.message(publicId: view.id)
        }
        #expect(harness.sender.batches.count == 1, "the one batch allowed in flight is held at the provider")
        #expect(message.fanOutDone && message.counts.total == 12)

        harness.sender.release()
        var stats = try await service.stats(publicId: view.id)
        for _ in 0..<1000 where !stats.done {
            try await Task.sleep(for: .milliseconds(10))
            stats = try await service.stats(publicId: view.id)
        }
        #expect(stats.done && stats.sent == 12)
        await harness.engine.stop()
        #expect(Set(harness.sender.pushes.map(\.token)).count == 12)
    }

    /// Options for the hand-off tests: one batch of two in flight, chunks of two.
    static var oneBatchOfTwo: DeliveryEngine.Options {
        var options = DeliveryEngine.Options()
        options.batchSize = 2
        options.concurrency = 1
        options.fanOut = FanOut(chunkSize: 2)
        return options
    }

    /// Waits until `ready` holds, for up to ten seconds.
    static func eventually(_ ready: () async throws -> Bool) async throws {
        for _ in 0..<1000 {
            if try await ready() { return }
            try await Task.sleep(for: .milliseconds(10))
        }
        Issue.record("timed out")
    }

    /// Statuses of a message's deliveries, in id order.
    static func statuses(_ harness: DeliveryHarness, _ id: String) async throws -> [String] {
        try await harness.deliveries(id).map { $0["status"] as? String ?? "?" }
    }

    /// Six devices, the provider holding every batch, the engine running, one message to them all:
    /// returns once its fan-out is done and the provider holds the first batch.
    static func sendToSixWithTheProviderHeld(_ harness: DeliveryHarness) async throws
        -> (MessageService, MessageView)
    {
        for index in 0..<6 { try await harness.subscribe("device-\(index)") }
        harness.sender.hold()
        await harness.engine.start()
        let (service, view) = try await sendToTheResource(harness, fanOut: oneBatchOfTwo.fanOut)
        try await eventually {
            try await service.message(publicId: view.id).fanOutDone && !harness.sender.batches.isEmpty
        }
        return (service, view)
    }

    /// A chunk goes to idle senders without a claim: written leased (`sending`, first attempt) while
    /// the one batch allowed in flight is held at the provider, so no claim can have taken it. The
    /// message's first chunk (written with it) is claimed; the next chunk is handed off; the last,
    /// with a round already waiting and the provider taking nothing, is written queued.
    @Test func theFanOutHandsAChunkToIdleSendersWithoutAClaim() async throws {
        let harness = try await DeliveryHarness.make(options: Self.oneBatchOfTwo)
        defer { Task { await harness.finish() } }
        let (service, view) = try await Self.sendToSixWithTheProviderHeld(harness)
        let rows = try await harness.deliveries(view.id)
        #expect(harness.sender.batches.count == 1, "the provider holds the one batch in flight")
        #expect(rows.filter { $0["status"] as? String == "sending" }.count == 4, "\(rows)")
        #expect(rows.filter { $0["status"] as? String == "queued" }.count == 2, "\(rows)")
        #expect(rows.allSatisfy { $0.int("attempts") == ($0["status"] as? String == "sending" ? 1 : 0) })

        harness.sender.release()
        try await Self.eventually { try await service.stats(publicId: view.id).done }
        #expect(try await service.stats(publicId: view.id).sent == 6)
        await harness.engine.stop()
        #expect(harness.sentTokens == (0..<6).map { "device-\($0)" })
        #expect(try await harness.deliveries(view.id).allSatisfy { $0.int("attempts") == 1 })
    }

    /// While another message's deliveries wait, a fan-out hands nothing off: its chunks are written
    /// queued and the messages take turns in the claims, as without hand-offs.
    @Test func whileAnotherMessageWaitsTheFanOutQueuesItsChunks() async throws {
        let harness = try await DeliveryHarness.make(options: Self.oneBatchOfTwo)
        defer { Task { await harness.finish() } }
        for index in 0..<6 { try await harness.subscribe("device-\(index)") }
        let (service, first) = try await Self.sendToTheResource(harness, fanOut: Self.oneBatchOfTwo.fanOut)
        let (_, second) = try await Self.sendToTheResource(harness, fanOut: Self.oneBatchOfTwo.fanOut)
        harness.sender.hold()
        await harness.engine.start()
        try await Self.eventually {
            let firstDone = try await service.message(publicId: first.id).fanOutDone
            let secondDone = try await service.message(publicId: second.id).fanOutDone
            return firstDone && secondDone && !harness.sender.batches.isEmpty
        }
        let statuses = try await Self.statuses(harness, first.id) + Self.statuses(harness, second.id)
        #expect(statuses.filter { $0 == "sending" }.count == 2, "only the batch the provider holds: \(statuses)")
        #expect(harness.sender.batches.first.map { Set($0.map(\.messageId)).count } == 2, "one of each, in turns")

        harness.sender.release()
        try await Self.eventually {
            let firstDone = try await service.stats(publicId: first.id).done
            let secondDone = try await service.stats(publicId: second.id).done
            return firstDone && secondDone
        }
        await harness.engine.stop()
        #expect(harness.sender.pushes.count == 12)
    }

    /// A handed-off batch that waited half its lease (the provider stalled) is not sent from memory:
    /// by then another node may have claimed its rows. Here one does once the leases ran out; the
    /// batch is dropped, and its devices get the message once, from the claim after that node's lease.
    @Test func aHandedOffBatchThatWaitedHalfItsLeaseIsLeftToTheClaims() async throws {
        let harness = try await DeliveryHarness.make(options: Self.oneBatchOfTwo)
        defer { Task { await harness.finish() } }
        let (service, view) = try await Self.sendToSixWithTheProviderHeld(harness)
        try #require(try await Self.statuses(harness, view.id).filter { $0 == "sending" }.count == 4)
        let held = try #require(harness.sender.batches.first).map(\.token)

        harness.clock.advance(seconds: 121)
        let now = harness.clock.milliseconds
        let other = try await harness.server.store.write {
            try $0.claimDeliveries(limit: 10, now: now, leaseUntil: now + 120_000)
        }
        #expect(other.count == 6, "the other node claims every row: lapsed leases and queued")
        harness.sender.release()
        try await Task.sleep(for: .milliseconds(200))
        harness.clock.advance(seconds: 121)
        harness.engine.wake()
        try await Self.eventually { try await service.stats(publicId: view.id).done }
        await harness.engine.stop()
        // The held batch was sent before its lease ran out and again after; every other device once.
        var sends: [String: Int] = [:]
        for token in harness.sender.pushes.map(\.token) { sends[token, default: 0] += 1 }
        #expect(sends.filter { $0.value == 2 }.keys.sorted() == held.sorted(), "\(sends)")
        #expect(sends.count == 6 && sends.values.allSatisfy { $0 <= 2 })
    }

    /// APNs answers with the `apns-id` Tern sent (its hex digits maybe in upper case, or none at
    /// all): the outcome is recorded without it, so the chunk's sent first attempts go in runs of
    /// `delivery_sent_runs` and not a row each, and the deliveries page shows the id made again. An
    /// id APNs chose itself is kept and shown.
    @Test func apnsIDsTernMadeAreShownWithoutARowEach() async throws {
        // Chunks of two: the first is written with the message and claimed, the rest handed off.
        var options = DeliveryEngine.Options()
        options.fanOut = FanOut(chunkSize: 2)
        let harness = try await DeliveryHarness.make(options: options)
        defer { Task { await harness.finish() } }
        for index in 0..<8 { try await harness.subscribe("device-\(index)") }
        harness.sender.answer { push in
            let made = APNsID.delivery(messageId: push.messageId, deliveryId: push.deliveryId)
            return switch push.token {
            case "device-3": .sent(providerMessageId: made.uppercased())
            case "device-4": .sent(providerMessageId: nil)
            case "device-5": .sent(providerMessageId: "apns-chose-this")
            default: .sent(providerMessageId: made)
            }
        }
        await harness.engine.start()
        let (service, view) = try await Self.sendToTheResource(harness, fanOut: options.fanOut)
        try await Self.eventually { try await service.stats(publicId: view.id).done }
        await harness.engine.stop()
        #expect(try await service.stats(publicId: view.id).sent == 8)
        let pushes = Dictionary(uniqueKeysWithValues: harness.sender.pushes.map { ($0.deliveryId, $0) })
        let rows = try await harness.deliveries(view.id)
        #expect(rows.count == 8)
        for row in rows {
            let push = try #require(pushes[row.int("id")])
            let made = APNsID.delivery(messageId: view.id, deliveryId: push.deliveryId)
            let expected = push.token == "device-5" ? "apns-chose-this" : made
            #expect(row["provider_message_id"] as? String == expected, "\(push.token)")
            #expect(row["status"] as? String == "sent" && row.int("attempts") == 1, "\(push.token)")
        }
        // The claimed chunk's outcomes and the chosen id are rows; the handed-off rest are runs.
        let (appended, inRuns) = try await harness.server.store.read { tx in
            (
                try integerRows(tx, "SELECT delivery_id FROM delivery_outcomes ORDER BY 1", []),
                try integerRows(tx, "SELECT SUM(last_id - first_id + 1) FROM delivery_sent_runs", [])
            )
        }
        let byToken = Dictionary(uniqueKeysWithValues: harness.sender.pushes.map { ($0.token, $0.deliveryId) })
        #expect(appended == ["device-0", "device-1", "device-5"].map { [byToken[$0] ?? 0] })
        #expect(inRuns == [[5]])
    }

    @Test func theLoopSendsWhatTheAPIQueuesAndStopsCleanly() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.finish() } }
        for index in 0..<4 { try await harness.subscribe("device-\(index)") }
        await harness.engine.start()
        let (service, view) = try await Self.sendToTheResource(harness)
        var stats = try await service.stats(publicId: view.id)
        for _ in 0..<500 where !stats.done {
            try await Task.sleep(for: .milliseconds(10))
            stats = try await service.stats(publicId: view.id)
        }
        #expect(stats.done)
        #expect(stats.sent == 4)
        await harness.engine.stop()
        #expect(harness.sender.pushes.count == 4)
    }
}
