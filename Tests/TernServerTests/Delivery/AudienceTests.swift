import Foundation
import TernProtocol
import Testing

@testable import TernServer

/// Who a message reaches: each audience kind, its filters, and the rules that hold whatever the audience.
@Suite struct AudienceTests {
    @Test func aProfileAudienceReachesThatProfileOnly() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.finish() } }
        let first = try await harness.subscribe("token-a")
        try await harness.subscribe("token-b")
        _ = try await harness.send(["type": "profile", "profile_id": first])
        try await harness.engine.drain()
        #expect(harness.sentTokens == ["token-a"])
    }

    @Test func aListOfProfilesReachesEach() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.finish() } }
        let a = try await harness.subscribe("token-a")
        let b = try await harness.subscribe("token-b")
        try await harness.subscribe("token-c")
        _ = try await harness.send(["type": "profiles", "profile_ids": [a, b]])
        try await harness.engine.drain()
        #expect(harness.sentTokens == ["token-a", "token-b"])
    }

    @Test func aTokenAudienceReachesOneDeviceOnceEvenInTwoProfiles() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.finish() } }
        let signer = try await TestSigner.register(on: harness.server)
        let db = harness.server.bootstrap.projectId
        for email in ["a@example.com", "b@example.com"] {
            let jwt = try signer.token(["db_id": db, "email": email])
            let reply = try await harness.server.sdk(
                .pushSubscribe, InProcessServer.subscription(token: "shared"), rToken: harness.server.bootstrap.rToken,
                jwt: jwt)
            try #require(reply.status == 200, "\(reply.errorText)")
        }
        try await harness.subscribe("other")
        let id = try await harness.send(["type": "token", "provider": "ios-apns", "token": "shared"])
        try await harness.engine.drain()
        #expect(harness.sentTokens == ["shared"])
        #expect(try await harness.stats(id).int("targeted") == 1)
    }

    @Test func suspendedAndUnsubscribedSubscriptionsNeverGetAPush() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.finish() } }
        try await harness.subscribe("subscribed")
        try await harness.subscribe("suspended", endpoint: .pushSuspend)
        try await harness.subscribe("unsubscribed", endpoint: .pushUnsubscribe)
        let suspendedProfile = try await harness.subscribe("later-suspended")
        try await harness.subscribe("later-suspended", endpoint: .pushSuspend, time: 2000)
        _ = try await harness.send(["type": "resource", "resource_id": harness.resourceId])
        _ = try await harness.send(["type": "profile", "profile_id": suspendedProfile])
        try await harness.engine.drain()
        #expect(harness.sentTokens == ["subscribed"])
    }

    @Test func categoriesFilterAndAMessagesCategoryIsHonoured() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.finish() } }
        try await harness.addCategory("news")
        try await harness.addCategory("promo")
        try await harness.subscribe("news-on", cats: ["news": true])
        try await harness.subscribe("news-off", cats: ["news": false, "promo": true])
        try await harness.subscribe("no-cats")
        _ = try await harness.send(["type": "resource", "resource_id": harness.resourceId, "categories": ["news"]])
        try await harness.engine.drain()
        #expect(harness.sentTokens == ["news-on"])

        let before = harness.sender.pushes.count
        _ = try await harness.send(
            ["type": "resource", "resource_id": harness.resourceId], extra: ["category": "news"])
        try await harness.engine.drain()
        #expect(harness.sender.pushes.dropFirst(before).map(\.token).sorted() == ["news-on", "no-cats"])
    }

    @Test func customFieldsFilter() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.finish() } }
        try await harness.subscribe("vip", fields: ["vip": true, "plan": "gold"])
        try await harness.subscribe("gold", fields: ["vip": false, "plan": "gold"])
        try await harness.subscribe("plain")
        _ = try await harness.send([
            "type": "resource", "resource_id": harness.resourceId, "fields": ["plan": "gold", "vip": true],
        ])
        try await harness.engine.drain()
        #expect(harness.sentTokens == ["vip"])
    }

    @Test func tagsFilterOnPresenceAndValue() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.finish() } }
        for (token, tags) in [("gold", ["tier": "gold", "beta": "1"]), ("silver", ["tier": "silver"]), ("none", [:])] {
            try await harness.subscribe(token)
            if !tags.isEmpty {
                let reply = try await harness.server.sdk(
                    .profileTagsSet, ["provider": "ios-apns", "subscription_id": token, "tags": tags])
                try #require(reply.status == 200, "\(reply.errorText)")
            }
        }
        _ = try await harness.send([
            "type": "resource", "resource_id": harness.resourceId, "tags": ["tier": "gold"],
        ])
        try await harness.engine.drain()
        #expect(harness.sentTokens == ["gold"])
        let before = harness.sender.pushes.count
        _ = try await harness.send(["type": "resource", "resource_id": harness.resourceId, "tags": ["tier": NSNull()]])
        try await harness.engine.drain()
        #expect(harness.sender.pushes.dropFirst(before).map(\.token).sorted() == ["gold", "silver"])
    }

    @Test func aTokenMarkedInvalidIsSkippedUntilTheDeviceRegistersAgain() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.finish() } }
        try await harness.subscribe("dead", time: 1000)
        try await harness.subscribe("alive")
        let marked = try await harness.server.store.write {
            try $0.markTokenInvalid(
                provider: .apns, token: "dead", reason: "Unregistered", since: nil,
                now: ServerClock.milliseconds() + 1)
        }
        #expect(marked)
        _ = try await harness.send(["type": "resource", "resource_id": harness.resourceId])
        try await harness.engine.drain()
        #expect(harness.sentTokens == ["alive"])

        try await Task.sleep(for: .milliseconds(5))
        try await harness.subscribe("dead", time: 2000)
        let before = harness.sender.pushes.count
        _ = try await harness.send(["type": "resource", "resource_id": harness.resourceId])
        try await harness.engine.drain()
        #expect(harness.sender.pushes.dropFirst(before).map(\.token).sorted() == ["alive", "dead"])
    }

    @Test func aLargeAudienceFansOutChunkByChunkAndReachesEveryDeviceOnce() async throws {
        var options = DeliveryEngine.Options()
        options.fanOut = FanOut(chunkSize: 4)
        options.batchSize = 3
        let harness = try await DeliveryHarness.make(options: options)
        defer { Task { await harness.finish() } }
        for index in 0..<11 { try await harness.subscribe("device-\(index)") }
        // The admin API's own fan-out takes its default chunk; build the message's first chunk like it with 4.
        let request = try JSONDecoder().decode(
            MessageRequest.self,
            from: JSONSerialization.data(withJSONObject: [
                "title": "Hi", "audience": ["type": "resource", "resource_id": harness.resourceId],
            ]))
        let service = MessageService(store: harness.server.store, fanOut: FanOut(chunkSize: 4))
        let view = try await service.create(request)
        #expect(view.counts.total == 4)
        #expect(view.counts.queued == 4)
        #expect(view.fanOutDone == false)
        #expect(view.done == false)
        try await harness.engine.drain()
        #expect(harness.sentTokens == (0..<11).map { "device-\($0)" }.sorted())
        let stats = try await harness.stats(view.id)
        #expect(stats.int("targeted") == 11)
        #expect(stats.int("sent") == 11)
        #expect(stats["done"] as? Bool == true)
    }

    @Test func theMessageAndItsDeliveriesAreWrittenTogether() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.finish() } }
        for index in 0..<5 { try await harness.subscribe("device-\(index)") }
        let reply = try await harness.create([
            "title": "Hi", "audience": ["type": "resource", "resource_id": harness.resourceId],
        ])
        #expect(reply.status == 201)
        let counts = try #require(reply.json["counts"] as? [String: Any])
        #expect(counts.int("total") == 5)
        #expect(counts.int("queued") == 5)
        #expect(reply.json["fan_out_done"] as? Bool == true)
        #expect(reply.json["done"] as? Bool == false)
        let id = try #require(reply.json["id"] as? String)
        #expect(
            try await harness.deliveries(id).map { $0["status"] as? String } == Array(repeating: "queued", count: 5))
    }
}
