import Foundation
import TernProtocol
import TernTestSupport
import Testing

@testable import TernServer

/// Welcome messages (`trigger.event_name` `$subscribed`): the server notes the event itself when a
/// person's push subscription in the message's resource becomes subscribed (made subscribed, or
/// subscribed again after an unsubscribe or a suspend; a goal's push subscription likewise), and
/// the message then goes as any triggered one does. A repeat subscribe, a device of another
/// resource and an imported device start nothing; an app cannot post `$subscribed` itself.
@Suite struct WelcomeTriggerTests {
    /// A harness with the pixel goals name, and a runner on its clock.
    static func make(_ factory: StoreFactory) async throws -> (DeliveryHarness, TriggerRunner) {
        let harness = try await DeliveryHarness.make(store: factory)
        _ = try await harness.server.admin(
            "POST", "/projects/\(harness.server.bootstrap.projectId)/pixels", json: ["sid": "shop"])
        let runner = TriggerRunner(
            messages: MessageService(store: harness.server.store, clock: harness.clock.function),
            logger: Logger(minimum: .error, sink: { _ in }))
        return (harness, runner)
    }

    /// A welcome to the harness's resource with `trigger`'s other minutes; its id.
    static func welcome(_ harness: DeliveryHarness, _ trigger: [String: Any] = ["delay_minutes": 10]) async throws
        -> String
    {
        var trigger = trigger
        trigger["event_name"] = "$subscribed"
        let reply = try await harness.create([
            "title": "Welcome!", "trigger": trigger,
            "audience": ["type": "resource", "resource_id": harness.resourceId],
        ])
        try #require(reply.status == 201, "\(reply.status) \(reply.errorText)")
        return try #require(reply.json["id"] as? String)
    }

    /// The waits running, of every person and message.
    static func waits(_ harness: DeliveryHarness) async throws -> [TriggerRun] {
        try await harness.server.store.read { tx in try tx.dueTriggerRuns(now: Int64.max, limit: 100) }
    }

    /// `push/subscribe` or `push/unsubscribe` of `token` (a profile of its own) at `time`.
    static func change(_ harness: DeliveryHarness, _ endpoint: Endpoint, _ token: String, time: Int64) async throws {
        _ = try await harness.subscribe(token, endpoint: endpoint, time: time)
    }

    @Test(arguments: StoreFactory.all)
    func aDeviceThatSubscribesIsWelcomedAfterTheDelayOnce(factory: StoreFactory) async throws {
        let (harness, runner) = try await Self.make(factory)
        defer { Task { await harness.finish() } }
        try await harness.subscribe("old-phone")
        let id = try await Self.welcome(harness)
        #expect(try await Self.waits(harness).isEmpty, "a device subscribed before the welcome starts nothing")

        try await harness.subscribe("new-phone")
        #expect(try await Self.waits(harness).count == 1)
        // The SDK subscribes on every launch: a subscribed device starts no second wait.
        try await Self.change(harness, .pushSubscribe, "new-phone", time: 2_000)
        try await Self.change(harness, .pushSubscribe, "old-phone", time: 2_000)
        #expect(try await Self.waits(harness).count == 1)
        // A device of another resource of the project is not the welcome's.
        let other = try await harness.server.admin(
            "POST", "/resources", json: ["project_id": harness.server.bootstrap.projectId, "name": "second"])
        let rToken = try #require(other.json["rtoken"] as? String)
        let elsewhere = try await harness.server.sdk(
            .pushSubscribe, ["time": 1000, "provider": "ios-apns", "subscription_id": "tablet", "sync": true],
            rToken: rToken)
        #expect(elsewhere.status == 200, "\(elsewhere.errorText)")
        // An imported device subscribed long ago, through another SDK.
        let imported = try await DeviceImportTests.importDevices(harness, [["subscription_id": "imported"]])
        #expect(imported.status == 200 && imported.json.int("imported") == 1, "\(imported.errorText)")
        #expect(try await Self.waits(harness).count == 1)

        #expect(try await runner.pass() == 0, "not before the delay")
        harness.clock.advance(seconds: 601)
        #expect(try await runner.pass() == 1)
        while try await harness.engine.drain() > 0 {}
        #expect(harness.sentTokens == ["new-phone"])
        let stats = try await harness.stats(id)
        #expect(stats.int("targeted") == 1 && stats.int("sent") == 1, "\(stats)")

        // Cancelled, the welcome starts no more waits.
        #expect(try await harness.server.admin("POST", "/messages/\(id)/cancel").status == 200)
        try await harness.subscribe("late-phone")
        #expect(try await Self.waits(harness).isEmpty)
    }

    @Test(arguments: StoreFactory.all)
    func subscribingAgainWelcomesAgainOnlyAfterTheReentryTime(factory: StoreFactory) async throws {
        let (harness, runner) = try await Self.make(factory)
        defer { Task { await harness.finish() } }
        _ = try await Self.welcome(harness, ["reentry_after_minutes": 1440])
        try await harness.subscribe("phone")
        #expect(try await runner.pass() == 1)
        while try await harness.engine.drain() > 0 {}
        #expect(harness.sender.pushes.count == 1)

        // Unsubscribed and subscribed again within the day: no wait starts.
        try await Self.change(harness, .pushUnsubscribe, "phone", time: 2_000)
        try await Self.change(harness, .pushSubscribe, "phone", time: 3_000)
        #expect(try await Self.waits(harness).isEmpty)
        // A day after it went, a suspended device subscribing again is welcomed through round 2.
        harness.clock.advance(seconds: 86_401)
        try await Self.change(harness, .pushSuspend, "phone", time: 4_000)
        try await Self.change(harness, .pushSubscribe, "phone", time: 5_000)
        #expect(try await runner.pass() == 1)
        while try await harness.engine.drain() > 0 {}
        let ids = try TriggerReentryTests.pushIds(harness)["phone"] ?? []
        #expect(ids.count == 2 && ids[1].contains("-2."), "\(ids)")
    }

    @Test(arguments: StoreFactory.all)
    func withoutReentryADeviceSubscribingAgainIsNotWelcomedTwice(factory: StoreFactory) async throws {
        let (harness, runner) = try await Self.make(factory)
        defer { Task { await harness.finish() } }
        _ = try await Self.welcome(harness, [:])
        try await harness.subscribe("phone")
        #expect(try await runner.pass() == 1)
        try await Self.change(harness, .pushUnsubscribe, "phone", time: 2_000)
        try await Self.change(harness, .pushSubscribe, "phone", time: 3_000)
        _ = try await runner.pass()
        while try await harness.engine.drain() > 0 {}
        #expect(harness.sender.pushes.count == 1, "a device gets a message once")
    }

    @Test(arguments: StoreFactory.all)
    func aCancellingGoalEndsTheWelcomesWaitAndAGoalsSubscriptionStartsOne(factory: StoreFactory) async throws {
        let (harness, runner) = try await Self.make(factory)
        defer { Task { await harness.finish() } }
        let signer = try await TestSigner.register(on: harness.server)
        _ = try await Self.welcome(harness, ["delay_minutes": 10, "cancel_event_name": "purchase"])
        let ana = try await TriggerTests.person(harness, signer, "ana")
        let bo = try await TriggerTests.person(harness, signer, "bo")
        #expect(try await Self.waits(harness).count == 2)
        try await TriggerTests.goal(harness, bo, "purchase")
        #expect(try await Self.waits(harness).map(\.profileId).count == 1)
        harness.clock.advance(seconds: 601)
        #expect(try await runner.pass() == 1)
        while try await harness.engine.drain() > 0 {}
        #expect(harness.sentTokens == [ana.token])

        // A goal carrying a new push subscription of the resource starts bo's wait again.
        let reply = try await harness.server.sdk(
            .eventPost,
            [
                "events": [
                    [
                        "sid": "shop", "event_name": "tablet_added", "time": 6_000,
                        "subscription": [
                            "resource_id": harness.resourceId, "channel": "push", "provider": "ios-apns",
                            "subscription_id": "bo-tablet",
                        ],
                    ]
                ]
            ], jwt: bo.jwt)
        try #require(reply.status == 200, "\(reply.errorText)")
        #expect(try await Self.waits(harness).count == 1)
        harness.clock.advance(seconds: 601)
        #expect(try await runner.pass() == 1)
        while try await harness.engine.drain() > 0 {}
        #expect(harness.sentTokens == [ana.token, bo.token, "bo-tablet"].sorted(), "each of bo's devices")
    }

    @Test func anAppCannotPostAReservedGoal() async throws {
        let (harness, _) = try await Self.make(.sqlite)
        defer { Task { await harness.finish() } }
        _ = try await Self.welcome(harness)
        for name in ["$subscribed", "$anything"] {
            let reply = try await harness.server.sdk(
                .eventPost,
                [
                    "events": [
                        ["sid": "shop", "event_name": "ok", "time": 1], ["sid": "shop", "event_name": name, "time": 1],
                    ]
                ])
            #expect(reply.status == 400, "\(name)")
            #expect(
                reply.errorText.contains("events[1].event_name \"\(name)\" starts with $, which is reserved"),
                "\(reply.errorText)")
        }
        #expect(try await Self.waits(harness).isEmpty)
    }

    @Test func aWelcomeIsCheckedAsATrigger() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.finish() } }
        let resource: [String: Any] = ["type": "resource", "resource_id": harness.resourceId]
        for (trigger, reason) in [
            (["event_name": "$opened"], "trigger.event_name \"$opened\" is not an event the server notes"),
            (["event_name": "$opened"], "it supports $subscribed (when a device subscribes)"),
            (
                ["event_name": "cart", "cancel_event_name": "$subscribed"],
                "trigger.cancel_event_name \"$subscribed\" starts with $"
            ),
        ] as [([String: Any], String)] {
            let reply = try await harness.create(["title": "Hi", "trigger": trigger, "audience": resource])
            #expect(reply.status == 400 && reply.errorText.contains(reason), "\(reason): \(reply.errorText)")
        }
        let profile = try await harness.create([
            "title": "Hi", "trigger": ["event_name": "$subscribed"],
            "audience": ["type": "profile", "profile_id": "p_1"],
        ])
        #expect(
            profile.status == 400 && profile.errorText.contains("a triggered message goes to audience type resource"))
    }
}
