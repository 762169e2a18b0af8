import Foundation
import TernProtocol
import TernTestSupport
import Testing

@testable import TernServer

/// Triggered messages: a goal starts its person's wait, the runner sends the standing message to
/// their devices once the delay is over (each wait once, however many runners look), a cancelling
/// goal or `skip_triggers` keeps it from going, and cancelling the message ends every wait.
@Suite struct TriggerTests {
    struct Person {
        var jwt: String
        var profileId: String
        var token: String
    }

    static func person(_ harness: DeliveryHarness, _ signer: TestSigner, _ name: String, skipTriggers: Bool = false)
        async throws -> Person
    {
        let jwt = try signer.token([
            "db_id": try await JWTAuthTests.databaseId(harness.server), "email": "\(name)@example.com",
        ])
        var body: [String: Any] = [
            "time": 1000, "provider": "ios-apns", "subscription_id": "phone-\(name)", "sync": true,
        ]
        if skipTriggers { body["skip_triggers"] = true }
        let reply = try await harness.server.sdk(.pushSubscribe, body, jwt: jwt)
        try #require(reply.status == 200, "\(reply.errorText)")
        return Person(jwt: jwt, profileId: try #require(reply.profile?.id), token: "phone-\(name)")
    }

    static func goal(_ harness: DeliveryHarness, _ person: Person, _ name: String) async throws {
        let reply = try await harness.server.sdk(
            .eventPost, ["events": [["sid": "shop", "event_name": name, "time": 5_000]]], jwt: person.jwt)
        try #require(reply.status == 200, "\(reply.errorText)")
    }

    @Test(arguments: StoreFactory.all)
    func aGoalSendsTheMessageToItsPersonAfterTheDelayOnce(factory: StoreFactory) async throws {
        let harness = try await DeliveryHarness.make(store: factory)
        defer { Task { await harness.finish() } }
        let signer = try await TestSigner.register(on: harness.server)
        _ = try await harness.server.admin(
            "POST", "/projects/\(harness.server.bootstrap.projectId)/pixels", json: ["sid": "shop"])
        let ana = try await Self.person(harness, signer, "ana")
        let bo = try await Self.person(harness, signer, "bo")
        let cy = try await Self.person(harness, signer, "cy", skipTriggers: true)
        let reply = try await harness.create([
            "title": "Your cart is waiting", "body": "Hi {{_fname|there}}",
            "trigger": ["event_name": "cart_abandoned", "delay_minutes": 60, "cancel_event_name": "purchase"],
            "audience": ["type": "resource", "resource_id": harness.resourceId],
        ])
        try #require(reply.status == 201, "\(reply.status) \(reply.errorText)")
        let id = try #require(reply.json["id"] as? String)
        #expect(reply.json["done"] as? Bool == false, "a standing trigger is never done")
        while try await harness.engine.drain() > 0 {}
        #expect(harness.sender.pushes.isEmpty, "nobody's goal came yet")

        // ana leaves her cart; bo leaves his and buys within the hour; cy skips triggers.
        for (person, goals) in [
            (ana, ["cart_abandoned"]), (bo, ["cart_abandoned", "purchase"]), (cy, ["cart_abandoned"]),
        ] {
            for goal in goals { try await Self.goal(harness, person, goal) }
        }
        let messages = MessageService(store: harness.server.store, clock: harness.clock.function)
        let runner = TriggerRunner(messages: messages, logger: Logger(minimum: .error, sink: { _ in }))
        #expect(try await runner.pass() == 0, "not before the delay")
        harness.clock.advance(seconds: 3_601)
        async let first = runner.pass()
        async let second = runner.pass()
        #expect(try await first + second == 1, "ana's wait, taken once")
        while try await harness.engine.drain() > 0 {}
        #expect(harness.sentTokens == [ana.token])
        let shown = try MessageVariantTests.shown(try #require(harness.sender.pushes.first))
        #expect(shown.title == "Your cart is waiting" && shown.pushId.hasPrefix(id + "."))
        var stats = try await harness.stats(id)
        #expect(stats.int("targeted") == 1 && stats.int("sent") == 1 && stats["done"] as? Bool == false, "\(stats)")

        // Her next goal starts another wait, which sends nothing: a device gets a message once.
        try await Self.goal(harness, ana, "cart_abandoned")
        harness.clock.advance(seconds: 3_601)
        #expect(try await runner.pass() == 1)
        while try await harness.engine.drain() > 0 {}
        #expect(harness.sender.pushes.count == 1)
        // Another wait; cancelling the message ends it, and later goals start none.
        try await Self.goal(harness, ana, "cart_abandoned")
        let cancelled = try await harness.server.admin("POST", "/messages/\(id)/cancel")
        #expect(cancelled.status == 200, "\(cancelled.errorText)")
        try await Self.goal(harness, bo, "cart_abandoned")
        harness.clock.advance(seconds: 7_300)
        #expect(try await runner.pass() == 0)
        let waits = try await harness.server.store.read { tx in try tx.dueTriggerRuns(now: Int64.max, limit: 10) }
        #expect(waits.isEmpty, "\(waits)")
        stats = try await harness.stats(id)
        #expect(stats.int("targeted") == 1 && stats["done"] as? Bool == true, "\(stats)")
    }

    /// A trigger set up long ago sends its person a push, and an inbox copy whose days count from
    /// when it went.
    @Test func aTriggeredInboxCopyKeepsItsDaysFromWhenItWent() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.finish() } }
        let signer = try await TestSigner.register(on: harness.server)
        _ = try await harness.server.admin(
            "POST", "/projects/\(harness.server.bootstrap.projectId)/pixels", json: ["sid": "shop"])
        let ana = try await Self.person(harness, signer, "ana")
        let reply = try await harness.create([
            "title": "Welcome", "inbox": true, "trigger": ["event_name": "signup"],
            "audience": ["type": "resource", "resource_id": harness.resourceId],
        ])
        try #require(reply.status == 201, "\(reply.errorText)")
        harness.clock.advance(seconds: 100 * 86_400)
        try await Self.goal(harness, ana, "signup")
        let runner = TriggerRunner(
            messages: MessageService(store: harness.server.store, clock: harness.clock.function),
            logger: Logger(minimum: .error, sink: { _ in }))
        #expect(try await runner.pass() == 1)
        let expires = try await harness.server.store.read { tx in
            try integerRows(tx, "SELECT expires_at FROM inbox_messages", [])
        }
        try #require(expires.count == 1)
        #expect(expires[0][0] > harness.clock.milliseconds + 89 * 86_400_000, "90 days from when it went")
    }

    @Test func aTriggerIsCheckedWithWhatGoesWithIt() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.finish() } }
        let resource: [String: Any] = ["type": "resource", "resource_id": harness.resourceId]
        let cart: [String: Any] = ["event_name": "cart"]
        for (json, reason) in [
            (["trigger": ["event_name": ""], "audience": resource], "trigger.event_name is empty"),
            (
                ["trigger": ["event_name": "cart", "delay_minutes": 50_000], "audience": resource],
                "trigger.delay_minutes must be 0 to 43200"
            ),
            (
                ["trigger": ["event_name": "cart", "cancel_event_name": "cart"], "audience": resource],
                "must differ from trigger.event_name"
            ),
            (
                ["trigger": ["event_name": "cart", "reentry_after_minutes": 0], "audience": resource],
                "trigger.reentry_after_minutes must be 1 to 525600 (a year), not 0"
            ),
            (
                ["trigger": ["event_name": "cart", "reentry_after_minutes": 525_601], "audience": resource],
                "leave it out to send it once a person"
            ),
            (
                ["trigger": cart, "audience": ["type": "profile", "profile_id": "p_1"]],
                "a triggered message goes to audience type resource"
            ),
            (["trigger": cart, "audience": resource, "send_at": 1], "send_at does not go with trigger"),
            (["trigger": cart, "audience": resource, "time_to_live": 60], "time_to_live does not go with trigger"),
            (
                ["trigger": cart, "audience": resource, "variants": [[:], ["title": "B"]]],
                "variants does not go with trigger"
            ),
        ] as [([String: Any], String)] {
            var request = json
            request["title"] = "Hi"
            let reply = try await harness.create(request)
            #expect(reply.status == 400 && reply.errorText.contains(reason), "\(reason): \(reply.errorText)")
        }
    }
}
