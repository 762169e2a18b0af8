import Foundation
import TernProtocol
import TernTestSupport
import Testing

@testable import TernServer

/// Goals sent with the rToken alone, naming the device that sends them (`provider`,
/// `subscription_id`): the person holding that push subscription in the caller's resource starts
/// and cancels triggered messages as a JWT's person does, and the goals are stored and told with
/// that profile; a token of another resource, or of no one, ties them to no one; with a JWT the JWT's
/// person stays theirs; a device named badly is refused with the field's name.
@Suite struct TriggerDeviceTests {
    /// `event/post` from the device `token` (rToken only), or naming no device when nil.
    static func goal(
        _ harness: DeliveryHarness, _ name: String, token: String?, rToken: String? = nil, jwt: String? = nil
    ) async throws {
        var body: [String: Any] = ["events": [["sid": "shop", "event_name": name, "time": 5_000]]]
        if let token {
            body["provider"] = "ios-apns"
            body["subscription_id"] = token
        }
        let reply = try await harness.server.sdk(.eventPost, body, rToken: rToken, jwt: jwt)
        try #require(reply.status == 200, "\(name) from \(token ?? "no device"): \(reply.errorText)")
    }

    /// The goals' stored profiles (internal ids, 0 for none), oldest first.
    static func goalProfiles(_ harness: DeliveryHarness) async throws -> [Int64] {
        try await harness.server.store.read { tx in
            try integerRows(tx, "SELECT COALESCE(profile_id, 0) FROM goals ORDER BY id", []).map { $0[0] }
        }
    }

    static func internalId(_ harness: DeliveryHarness, _ publicId: String) async throws -> Int64 {
        try #require(try await harness.server.store.read { tx in try tx.profile(publicId: publicId) }?.id)
    }

    @Test(arguments: StoreFactory.all)
    func aDeviceWithoutAJWTStartsAndCancelsItsTriggeredMessage(factory: StoreFactory) async throws {
        let (harness, _, runner) = try await TriggerReentryTests.make(factory)
        defer { Task { await harness.finish() } }
        let ana = try await harness.subscribe("anon-ana")
        let bo = try await harness.subscribe("anon-bo")
        try await harness.subscribe("anon-cy")
        let reply = try await harness.create([
            "title": "Your cart is waiting",
            "trigger": ["event_name": "cart_abandoned", "delay_minutes": 60, "cancel_event_name": "purchase"],
            "audience": ["type": "resource", "resource_id": harness.resourceId],
        ])
        try #require(reply.status == 201, "\(reply.status) \(reply.errorText)")

        // ana leaves her cart; bo leaves his and buys within the hour; cy's goal names no device.
        try await Self.goal(harness, "cart_abandoned", token: "anon-ana")
        try await Self.goal(harness, "cart_abandoned", token: "anon-bo")
        try await Self.goal(harness, "purchase", token: "anon-bo")
        try await Self.goal(harness, "cart_abandoned", token: nil)
        #expect(try await runner.pass() == 0, "not before the delay")
        harness.clock.advance(seconds: 3_601)
        #expect(try await runner.pass() == 1, "ana's wait; bo's was cancelled, cy's never began")
        while try await harness.engine.drain() > 0 {}
        #expect(harness.sentTokens == ["anon-ana"])

        let (anaId, boId) = (try await Self.internalId(harness, ana), try await Self.internalId(harness, bo))
        #expect(try await Self.goalProfiles(harness) == [anaId, boId, boId, 0], "stored with the device's profile")
    }

    @Test(arguments: StoreFactory.all)
    func aTokenOfAnotherResourceOrOfNoOneStartsNothing(factory: StoreFactory) async throws {
        let (harness, _, runner) = try await TriggerReentryTests.make(factory)
        defer { Task { await harness.finish() } }
        let made = try await harness.server.admin(
            "POST", "/resources",
            json: ["project_id": harness.server.bootstrap.projectId, "name": "second", "channels": ["push"]])
        try #require(made.status == 201, "\(made.status) \(made.errorText)")
        let otherRToken = try #require(made.json["rtoken"] as? String, "\(made.json)")
        let subscribed = try await harness.server.sdk(
            .pushSubscribe, InProcessServer.subscription(token: "elsewhere"), rToken: otherRToken)
        try #require(subscribed.status == 200, "\(subscribed.errorText)")
        try await harness.subscribe("here")
        _ = try await TriggerReentryTests.reminder(harness, [:])

        // The harness's resource names a device of the second resource, and a token no one holds:
        // recorded, tied to no one, no wait.
        try await Self.goal(harness, "cart_abandoned", token: "elsewhere")
        try await Self.goal(harness, "cart_abandoned", token: "nobody")
        // The second resource's device names the first's: its resource holds no such device.
        try await Self.goal(harness, "cart_abandoned", token: "here", rToken: otherRToken)
        #expect(try await runner.pass() == 0)
        while try await harness.engine.drain() > 0 {}
        #expect(harness.sender.pushes.isEmpty)
        #expect(try await Self.goalProfiles(harness) == [0, 0, 0])
    }

    /// With a JWT, the JWT's person is the goal's, whatever device the request names.
    @Test(arguments: StoreFactory.all)
    func withAJWTTheJWTsPersonStaysTheGoals(factory: StoreFactory) async throws {
        let (harness, signer, runner) = try await TriggerReentryTests.make(factory)
        defer { Task { await harness.finish() } }
        let ana = try await TriggerTests.person(harness, signer, "ana")
        try await harness.subscribe("anon-bo")
        _ = try await TriggerReentryTests.reminder(harness, [:])
        try await Self.goal(harness, "cart_abandoned", token: "anon-bo", jwt: ana.jwt)
        #expect(try await runner.pass() == 1)
        while try await harness.engine.drain() > 0 {}
        #expect(harness.sentTokens == [ana.token])
    }

    /// The device is looked up only when something needs the goal's person: without a triggered
    /// message or a `goal.reached` webhook the goal is stored without one; with the webhook, the
    /// webhook and the stored goal name the device's profile.
    @Test(arguments: StoreFactory.all)
    func theGoalWebhookNamesTheDevicesProfile(factory: StoreFactory) async throws {
        let (harness, _, _) = try await TriggerReentryTests.make(factory)
        defer { Task { await harness.finish() } }
        let ana = try await harness.subscribe("anon-ana")
        try await Self.goal(harness, "purchase", token: "anon-ana")
        #expect(try await Self.goalProfiles(harness) == [0], "nothing needed it: no lookup")

        let (receiver, _) = try await WebhookTests.hook(harness, ["goal.reached"])
        try await Self.goal(harness, "purchase", token: "anon-ana")
        #expect(try await WebhookTests.dispatcher(harness).pass() == 1)
        let reached = try #require(receiver.posts.flatMap(\.events).first)
        #expect(reached["profile_id"] as? String == ana, "\(reached)")
        #expect(try await Self.goalProfiles(harness) == [0, try await Self.internalId(harness, ana)])
    }

    @Test func aDeviceNamedBadlyIsRefusedWithTheFieldsName() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.finish() } }
        let events: [[String: Any]] = [["sid": "shop", "event_name": "cart", "time": 5_000]]
        for (device, reason) in [
            (["provider": "ios-apns", "subscription_id": ""], "subscription_id is empty"),
            (
                ["provider": "ios-apns", "subscription_id": String(repeating: "a", count: 4097)],
                "subscription_id is longer than 4096 characters"
            ),
            (["provider": "android-fcm", "subscription_id": "t"], "provider \"android-fcm\" is not valid: use one of"),
            (["provider": "ios-apns"], "send provider and subscription_id together"),
            (["subscription_id": "t"], "send provider and subscription_id together"),
        ] as [([String: Any], String)] {
            var body = device
            body["events"] = events
            let reply = try await harness.server.sdk(.eventPost, body)
            #expect(reply.status == 400 && reply.errorText.contains(reason), "\(device): \(reply.errorText)")
        }
    }
}
