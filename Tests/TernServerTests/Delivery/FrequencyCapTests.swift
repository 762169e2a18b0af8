import Foundation
import TernProtocol
import TernTestSupport
import Testing

@testable import TernServer

/// A project's frequency cap: a person gets at most so many of its messages in a window, counted at
/// each message's send time; a message that ignores the cap goes anyway and counts; a person's
/// devices are not held back by the message itself; test sends are neither held nor counted; the
/// cap is checked, and erasure removes what was counted.
@Suite struct FrequencyCapTests {
    static func cap(_ harness: DeliveryHarness, _ json: [String: Any]?) async throws -> InProcessServer.Reply {
        let path = "/projects/\(harness.server.bootstrap.projectId)/frequency-cap"
        guard let json else { return try await harness.server.admin("DELETE", path) }
        return try await harness.server.admin("PUT", path, json: json)
    }

    @Test(arguments: StoreFactory.all)
    func aPersonGetsAtMostTheCapInItsWindow(factory: StoreFactory) async throws {
        let harness = try await DeliveryHarness.make(store: factory)
        defer { Task { await harness.finish() } }
        let set = try await Self.cap(harness, ["pushes": 2, "hours": 24])
        #expect(set.status == 200, "\(set.errorText)")
        #expect(set.json["frequency_cap"] as? [String: Int] == ["pushes": 2, "hours": 24])
        let alice = try await harness.subscribe("alice")
        try await harness.subscribe("bob")
        let everyone: [String: Any] = ["type": "resource", "resource_id": harness.resourceId]

        func send(_ audience: [String: Any], extra: [String: Any] = [:]) async throws -> (String, [String]) {
            let before = harness.sender.pushes.count
            let id = try await harness.send(audience, extra: extra)
            try await harness.engine.drain()
            return (id, harness.sender.pushes[before...].map(\.token).sorted())
        }
        #expect(try await send(everyone).1 == ["alice", "bob"])
        #expect(try await send(["type": "profile", "profile_id": alice]).1 == ["alice"])
        let (third, thirdTo) = try await send(everyone)
        #expect(thirdTo == ["bob"], "alice had two already")
        var stats = try await harness.stats(third)
        #expect(stats.int("skipped_by_frequency_cap") == 1 && stats.int("targeted") == 1, "\(stats)")
        #expect(try await send(everyone, extra: ["ignore_frequency_cap": true]).1 == ["alice", "bob"])
        let (fifth, fifthTo) = try await send(everyone)
        #expect(fifthTo.isEmpty, "both reached the cap, the ignoring message counted")
        stats = try await harness.stats(fifth)
        #expect(stats.int("skipped_by_frequency_cap") == 2 && stats["done"] as? Bool == true, "\(stats)")

        // A day and an hour later the window holds none of them.
        let later = try await harness.send(everyone, extra: ["send_at": ServerClock.milliseconds() + 25 * 3_600_000])
        harness.clock.advance(seconds: 25 * 3600 + 5)
        try await harness.engine.drain()
        #expect(try await harness.stats(later).int("sent") == 2)

        let removed = try await Self.cap(harness, nil)
        #expect(removed.status == 200 && removed.json["frequency_cap"] == nil, "\(removed.errorText)")
        #expect(try await send(everyone).1 == ["alice", "bob"])
    }

    /// A person with three devices, one a chunk: each chunk counts the person's other messages only.
    @Test(arguments: StoreFactory.all)
    func aPersonsOtherDevicesAreNotHeldBackByTheMessageItself(factory: StoreFactory) async throws {
        var options = DeliveryEngine.Options()
        options.fanOut = FanOut(chunkSize: 1)
        let harness = try await DeliveryHarness.make(options: options, store: factory)
        defer { Task { await harness.finish() } }
        #expect(try await Self.cap(harness, ["pushes": 1, "hours": 1]).status == 200)
        let profile = try await harness.subscribe("phone")
        let resourceId = harness.resourceId
        try await harness.server.store.write { tx in
            let id = try #require(try tx.profile(publicId: profile)).id
            for token in ["tablet", "watch"] {
                _ = try tx.insertSubscription(
                    SubscriptionValues(
                        profileId: id, resourceId: resourceId, channel: .push, provider: .apns, token: token,
                        status: .subscribed, hashId: token, clientTime: 1), now: 2)
            }
        }
        let request = try JSONDecoder().decode(
            MessageRequest.self,
            from: JSONSerialization.data(withJSONObject: [
                "title": "Hi", "audience": ["type": "resource", "resource_id": resourceId],
            ]))
        let view = try await MessageService(store: harness.server.store, fanOut: FanOut(chunkSize: 1)).create(request)
        try await harness.engine.drain()
        #expect(harness.sentTokens == ["phone", "tablet", "watch"])
        let stats = try await harness.stats(view.id)
        #expect(stats.int("skipped_by_frequency_cap") == 0 && stats.int("sent") == 3, "\(stats)")
        // The next message is one too many.
        let next = try await harness.send(["type": "resource", "resource_id": resourceId])
        try await harness.engine.drain()
        #expect(try await harness.stats(next).int("skipped_by_frequency_cap") == 3)
    }

    @Test func testSendsAreNeitherHeldBackNorCounted() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.finish() } }
        #expect(try await Self.cap(harness, ["pushes": 1, "hours": 24]).status == 200)
        try await harness.subscribe("tester")
        let mark = try await harness.server.admin(
            "PUT", "/resources/\(harness.resourceId)/test-devices",
            json: ["subscription_id": "tester", "is_test": true])
        try #require(mark.status == 200, "\(mark.errorText)")
        let everyone: [String: Any] = ["type": "resource", "resource_id": harness.resourceId]
        for _ in 0..<2 { _ = try await harness.send(everyone, extra: ["test": true]) }
        try await harness.engine.drain()
        #expect(harness.sentTokens == ["tester", "tester"])
        let real = try await harness.send(everyone)
        try await harness.engine.drain()
        #expect(try await harness.stats(real).int("sent") == 1, "the test sends were not counted")
        _ = try await harness.send(everyone, extra: ["test": true])
        try await harness.engine.drain()
        #expect(harness.sentTokens.count == 4, "a test send goes past the cap")
    }

    @Test func aCapOutOfRangeIsRefusedAndErasureForgetsWhatWasCounted() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.finish() } }
        for (json, reason) in [
            (["pushes": 0, "hours": 24], "pushes must be 1 to 100 messages a person, not 0"),
            (["pushes": 3, "hours": 721], "hours must be 1 to 720 (30 days), not 721"),
        ] as [([String: Any], String)] {
            let reply = try await Self.cap(harness, json)
            #expect(reply.status == 400 && reply.errorText.contains(reason), "\(reply.errorText)")
        }
        let missing = try await harness.server.admin(
            "PUT", "/projects/999/frequency-cap", json: ["pushes": 1, "hours": 1])
        #expect(missing.status == 404, "\(missing.errorText)")
        let projects = try await harness.server.admin("GET", "/projects")
        #expect(projects.array.allSatisfy { $0["frequency_cap"] == nil })

        #expect(try await Self.cap(harness, ["pushes": 5, "hours": 24]).status == 200)
        let profile = try await harness.subscribe("device")
        _ = try await harness.send(["type": "profile", "profile_id": profile])
        try await harness.engine.drain()
        let id = try #require(try await harness.server.store.read { try $0.profile(publicId: profile) }).id
        func counted() async throws -> Int {
            try await harness.server.store.read {
                try $0.recentMessageCounts(profileIds: [id], since: 0, excluding: 0)[id] ?? 0
            }
        }
        #expect(try await counted() == 1)
        let erased = try await harness.server.admin("DELETE", "/profiles/\(profile)")
        #expect(erased.status == 200, "\(erased.errorText)")
        #expect(try await counted() == 0)
    }
}
