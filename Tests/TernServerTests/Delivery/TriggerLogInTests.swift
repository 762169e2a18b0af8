import Foundation
import TernProtocol
import TernTestSupport
import Testing

@testable import TernServer

/// A person's waits follow their device when it logs in: a log-in that leaves the device's own,
/// anonymous profile without a subscribed push subscription (`identity/change`; `push/unsuspend`
/// with a named person's JWT, or that person's first subscribe after it; `replace`) moves that
/// profile's waits to the person, with their due times; a cancelling goal after the log-in ends
/// them. The person's own wait (or a row of theirs that forbids re-entry yet) wins over a moved
/// one; a log-out, or a move away from a person who subscribed the device first, leaves the
/// person's waits with the person; a profile that keeps another subscribed device keeps its waits.
@Suite struct TriggerLogInTests {
    /// The waits running: (message, profile, due at), by message and profile.
    static func waits(_ harness: DeliveryHarness) async throws -> [[Int64]] {
        try await harness.server.store.read { tx in
            try integerRows(
                tx,
                "SELECT message_id, profile_id, due_at FROM trigger_runs WHERE due_at IS NOT NULL "
                    + "ORDER BY message_id, profile_id", [], columns: 3)
        }
    }

    /// The profiles (internal ids) of the waits running.
    static func waiting(_ harness: DeliveryHarness) async throws -> [Int64] {
        try await waits(harness).map { $0[1] }
    }

    /// `identity/change` of the device `token` (rToken): a login to `externalId`, or a logout when
    /// nil, from the binding `expected`; answers the binding it leaves.
    @discardableResult
    static func identity(
        _ harness: DeliveryHarness, _ token: String, logIn externalId: String?, expected: String = "initial"
    ) async throws -> String {
        var body: [String: Any] = [
            "provider": "ios-apns", "subscription_id": token, "expected_binding_id": expected,
            "operation_id": UUID().uuidString, "operation": externalId == nil ? "logout" : "login",
        ]
        if let externalId { body["external_id"] = externalId }
        let reply = try await harness.server.sdk(.identityChange, body)
        try #require(reply.status == 200, "\(reply.status) \(reply.errorText)")
        let binding = try #require(reply.json["binding"] as? [String: Any])
        return try #require(binding["binding_id"] as? String)
    }

    /// The profile (internal id) whose `_external_id` is `externalId`.
    static func person(_ harness: DeliveryHarness, _ externalId: String) async throws -> Int64 {
        let db = Int64(try await JWTAuthTests.databaseId(harness.server))
        let found = try await harness.server.store.read { tx in
            try tx.profiles(dbId: db, field: "_external_id", value: .string(externalId)).first
        }
        return try #require(found?.id)
    }

    /// Runs the due waits and sends their pushes.
    static func run(_ runner: TriggerRunner, _ harness: DeliveryHarness) async throws -> Int {
        let taken = try await runner.pass()
        while try await harness.engine.drain() > 0 {}
        return taken
    }

    @Test(arguments: StoreFactory.all)
    func aWelcomeBegunBeforeALogInGoesToThePersonAfterTheDelayOnce(factory: StoreFactory) async throws {
        let (harness, runner) = try await WelcomeTriggerTests.make(factory)
        defer { Task { await harness.finish() } }
        let id = try await WelcomeTriggerTests.welcome(harness)
        let anonymous = try await TriggerDeviceTests.internalId(harness, try await harness.subscribe("phone"))
        let begun = try await Self.waits(harness)
        #expect(begun.map { $0[1] } == [anonymous])

        // Five minutes on, the device logs in: the welcome's wait goes with it, due when it was.
        harness.clock.advance(seconds: 300)
        try await Self.identity(harness, "phone", logIn: "ada")
        let ada = try await Self.person(harness, "ada")
        let moved = try await Self.waits(harness)
        #expect(moved == [[begun[0][0], ada, begun[0][2]]], "\(moved)")

        #expect(try await Self.run(runner, harness) == 0, "not before the delay")
        harness.clock.advance(seconds: 301)
        #expect(try await Self.run(runner, harness) == 1)
        #expect(harness.sentTokens == ["phone"])
        harness.clock.advance(seconds: 3_600)
        #expect(try await Self.run(runner, harness) == 0)
        #expect(harness.sender.pushes.count == 1, "once")
        let stats = try await harness.stats(id)
        #expect(stats.int("targeted") == 1 && stats.int("sent") == 1, "\(stats)")
    }

    @Test(arguments: StoreFactory.all)
    func aWelcomeFollowsTheDeviceThroughPushUnsuspend(factory: StoreFactory) async throws {
        let (harness, runner) = try await WelcomeTriggerTests.make(factory)
        defer { Task { await harness.finish() } }
        let signer = try await TestSigner.register(on: harness.server)
        let db = try await JWTAuthTests.databaseId(harness.server)
        _ = try await WelcomeTriggerTests.welcome(harness)
        // bo already has a profile (his tablet, welcomed); ada has none yet.
        let bo = try signer.token(["db_id": db, "email": "bo@example.com"])
        let tablet = try await harness.server.sdk(
            .pushSubscribe, InProcessServer.subscription(token: "bo-tablet"), jwt: bo)
        try #require(tablet.status == 200, "\(tablet.errorText)")
        harness.clock.advance(seconds: 601)
        #expect(try await Self.run(runner, harness) == 1)
        #expect(harness.sentTokens == ["bo-tablet"])

        // Two installs, each on its own anonymous JWT, each with a welcome waiting.
        var anonymous: [String: Int64] = [:]
        for device in ["bo-phone", "ada-phone"] {
            let jwt = try signer.token(["db_id": db, "field_name": "install", "field_value": device])
            let reply = try await harness.server.sdk(
                .pushSubscribe, InProcessServer.subscription(token: device), jwt: jwt)
            try #require(reply.status == 200, "\(reply.errorText)")
            anonymous[device] = try await TriggerDeviceTests.internalId(harness, try #require(reply.profile?.id))
        }
        let begun = try await Self.waits(harness)
        #expect(Set(begun.map { $0[1] }) == Set(anonymous.values))

        // bo logs in: his profile takes the phone's wait at once.
        harness.clock.advance(seconds: 300)
        let boIn = try await harness.server.sdk(
            .pushUnsuspend, ["provider": "ios-apns", "subscription_id": "bo-phone"], jwt: bo)
        try #require(boIn.status == 200, "\(boIn.errorText)")
        let boId = try await TriggerDeviceTests.internalId(harness, try #require(boIn.profile?.id))
        // The SDK subscribes bo's profile with the phone then: his welcome is running already.
        let boSubscribed = try await harness.server.sdk(
            .pushSubscribe, InProcessServer.subscription(token: "bo-phone", time: 2_000), jwt: bo)
        try #require(boSubscribed.status == 200, "\(boSubscribed.errorText)")
        // ada logs in before she has a profile: the SDK then subscribes her, which takes the wait.
        let ada = try signer.token(["db_id": db, "email": "ada@example.com"])
        let adaIn = try await harness.server.sdk(
            .pushUnsuspend, ["provider": "ios-apns", "subscription_id": "ada-phone"], jwt: ada)
        #expect(adaIn.status == 200 && adaIn.profile == nil, "\(adaIn.errorText)")
        let adaAnonymous = try #require(anonymous["ada-phone"])
        #expect(Set(try await Self.waiting(harness)) == [adaAnonymous, boId])
        let adaSubscribed = try await harness.server.sdk(
            .pushSubscribe, InProcessServer.subscription(token: "ada-phone", time: 2_000), jwt: ada)
        try #require(adaSubscribed.status == 200, "\(adaSubscribed.errorText)")
        let adaId = try await TriggerDeviceTests.internalId(harness, try #require(adaSubscribed.profile?.id))
        let moved = try await Self.waits(harness)
        #expect(Set(moved.map { $0[1] }) == [boId, adaId], "\(moved)")
        #expect(Set(moved.map { $0[2] }) == Set(begun.map { $0[2] }), "due when they were, ada's first subscribe too")

        harness.clock.advance(seconds: 301)
        #expect(try await Self.run(runner, harness) == 2)
        #expect(harness.sentTokens == ["ada-phone", "bo-phone", "bo-tablet"], "each device once")
    }

    /// `push/subscribe` with the person's JWT and `replace` hands the device over too (its anonymous
    /// subscription becomes unsubscribed); without `replace` the anonymous profile keeps it subscribed,
    /// and its wait.
    @Test(arguments: StoreFactory.all)
    func aSubscribeThatReplacesTheAnonymousProfileTakesItsWaits(factory: StoreFactory) async throws {
        let (harness, runner) = try await WelcomeTriggerTests.make(factory)
        defer { Task { await harness.finish() } }
        let signer = try await TestSigner.register(on: harness.server)
        let db = try await JWTAuthTests.databaseId(harness.server)
        _ = try await WelcomeTriggerTests.welcome(harness)
        let phone = try await TriggerDeviceTests.internalId(harness, try await harness.subscribe("phone"))
        let tablet = try await TriggerDeviceTests.internalId(harness, try await harness.subscribe("tablet"))
        let begun = try await Self.waits(harness)
        #expect(begun.map { $0[1] } == [phone, tablet])

        harness.clock.advance(seconds: 300)
        var people: [Int64] = []
        for (token, replace) in [("phone", true), ("tablet", false)] {
            let jwt = try signer.token(["db_id": db, "email": "\(token)@example.com"])
            let reply = try await harness.server.sdk(
                .pushSubscribe, InProcessServer.subscription(token: token, time: 2_000, extra: ["replace": replace]),
                jwt: jwt)
            try #require(reply.status == 200, "\(reply.errorText)")
            people.append(try await TriggerDeviceTests.internalId(harness, try #require(reply.profile?.id)))
        }
        let now = try await Self.waits(harness)
        #expect(now.map { $0[1] } == [tablet, people[0], people[1]], "\(now)")
        #expect(now[1][2] == begun[0][2], "the phone's, due when it was")
        harness.clock.advance(seconds: 301)
        #expect(try await Self.run(runner, harness) == 2)
        #expect(harness.sentTokens == ["phone", "tablet"])
    }

    @Test(arguments: StoreFactory.all)
    func aGoalsWaitMovesAndTheCancellingGoalAfterTheLogInEndsIt(factory: StoreFactory) async throws {
        let (harness, _, runner) = try await TriggerReentryTests.make(factory)
        defer { Task { await harness.finish() } }
        _ = try await TriggerReentryTests.reminder(harness, ["delay_minutes": 60, "cancel_event_name": "purchase"])
        try await harness.subscribe("phone")
        try await harness.subscribe("tablet")
        for device in ["phone", "tablet"] {
            try await TriggerDeviceTests.goal(harness, "cart_abandoned", token: device)
            try await Self.identity(harness, device, logIn: "ada-\(device)")
        }
        let phone = try await Self.person(harness, "ada-phone")
        let tablet = try await Self.person(harness, "ada-tablet")
        #expect(try await Self.waiting(harness) == [phone, tablet])

        // The phone buys after the log-in: the goal is the person's, and ends the moved wait.
        try await TriggerDeviceTests.goal(harness, "purchase", token: "phone")
        #expect(try await Self.waiting(harness) == [tablet])
        harness.clock.advance(seconds: 3_601)
        #expect(try await Self.run(runner, harness) == 1)
        #expect(harness.sentTokens == ["tablet"])
    }

    @Test(arguments: StoreFactory.all)
    func thePersonsOwnWaitWinsOverAMovedOne(factory: StoreFactory) async throws {
        let (harness, _, runner) = try await TriggerReentryTests.make(factory)
        defer { Task { await harness.finish() } }
        _ = try await TriggerReentryTests.reminder(harness, ["delay_minutes": 60])
        // ada's tablet is logged in, and her cart waits; ten minutes on, her phone's anonymous one too.
        try await harness.subscribe("tablet")
        try await Self.identity(harness, "tablet", logIn: "ada")
        try await TriggerDeviceTests.goal(harness, "cart_abandoned", token: "tablet")
        let theirs = try await Self.waits(harness)
        harness.clock.advance(seconds: 600)
        try await harness.subscribe("phone")
        try await TriggerDeviceTests.goal(harness, "cart_abandoned", token: "phone")
        #expect(try await Self.waits(harness).count == 2)

        try await Self.identity(harness, "phone", logIn: "ada")
        #expect(try await Self.waits(harness) == theirs, "hers, due when it was; the phone's was dropped")
        harness.clock.advance(seconds: 3_001)
        #expect(try await Self.run(runner, harness) == 1)
        #expect(harness.sentTokens == ["phone", "tablet"])
        harness.clock.advance(seconds: 3_600)
        #expect(try await Self.run(runner, harness) == 0)
        #expect(harness.sender.pushes.count == 2, "one send to each device")
    }

    @Test(arguments: StoreFactory.all)
    func aLogOutLeavesThePersonsWaitsWithThePerson(factory: StoreFactory) async throws {
        let (harness, signer, runner) = try await TriggerReentryTests.make(factory)
        defer { Task { await harness.finish() } }
        _ = try await TriggerReentryTests.reminder(harness, ["delay_minutes": 60])
        // identity/change: the phone logs in, leaves a cart as ada, and logs out.
        try await harness.subscribe("phone")
        let binding = try await Self.identity(harness, "phone", logIn: "ada")
        try await TriggerDeviceTests.goal(harness, "cart_abandoned", token: "phone")
        let ada = try await Self.person(harness, "ada")
        try await Self.identity(harness, "phone", logIn: nil, expected: binding)
        #expect(try await Self.waiting(harness) == [ada])

        // push/unsuspend: the tablet logs in as bo, leaves a cart, and logs out with its anonymous JWT.
        let db = try await JWTAuthTests.databaseId(harness.server)
        let install = try signer.token(["db_id": db, "field_name": "install", "field_value": "tablet"])
        let bo = try signer.token(["db_id": db, "email": "bo@example.com"])
        let device: [String: Any] = ["provider": "ios-apns", "subscription_id": "tablet"]
        #expect(
            try await harness.server.sdk(.pushSubscribe, InProcessServer.subscription(token: "tablet"), jwt: install)
                .status == 200)
        #expect(try await harness.server.sdk(.pushUnsuspend, device, jwt: bo).status == 200)
        let boProfile = try await harness.server.sdk(
            .pushSubscribe, InProcessServer.subscription(token: "tablet", time: 2_000), jwt: bo)
        let boId = try await TriggerDeviceTests.internalId(harness, try #require(boProfile.profile?.id))
        try await TriggerDeviceTests.goal(harness, "cart_abandoned", token: nil, jwt: bo)
        #expect(try await harness.server.sdk(.pushUnsuspend, device, jwt: install).status == 200)
        #expect(Set(try await Self.waiting(harness)) == [ada, boId])

        // cy signed in before her device first subscribed: her log-out hands it to an install's
        // profile made then, the device's first subscription is hers, and her wait stays hers.
        let cy = try signer.token(["db_id": db, "email": "cy@example.com"])
        let cyProfile = try await harness.server.sdk(
            .pushSubscribe, InProcessServer.subscription(token: "kiosk"), jwt: cy)
        let cyId = try await TriggerDeviceTests.internalId(harness, try #require(cyProfile.profile?.id))
        try await TriggerDeviceTests.goal(harness, "cart_abandoned", token: nil, jwt: cy)
        let kiosk = try signer.token(["db_id": db, "field_name": "install", "field_value": "kiosk"])
        let unsuspended = try await harness.server.sdk(
            .pushUnsuspend, ["provider": "ios-apns", "subscription_id": "kiosk"], jwt: kiosk)
        #expect(unsuspended.status == 200 && unsuspended.profile == nil)
        let installed = try await harness.server.sdk(
            .pushSubscribe, InProcessServer.subscription(token: "kiosk", time: 2_000), jwt: kiosk)
        #expect(installed.profile?.subscription?.status == "subscribed")
        #expect(Set(try await Self.waiting(harness)) == [ada, boId, cyId])
        // eve signed in first on the desk's device, and fay straight after her: a person's wait is
        // never another person's.
        let eve = try signer.token(["db_id": db, "email": "eve@example.com"])
        let fay = try signer.token(["db_id": db, "email": "fay@example.com"])
        let eveProfile = try await harness.server.sdk(
            .pushSubscribe, InProcessServer.subscription(token: "desk"), jwt: eve)
        let eveId = try await TriggerDeviceTests.internalId(harness, try #require(eveProfile.profile?.id))
        try await TriggerDeviceTests.goal(harness, "cart_abandoned", token: nil, jwt: eve)
        #expect(
            try await harness.server.sdk(.pushUnsuspend, ["provider": "ios-apns", "subscription_id": "desk"], jwt: fay)
                .status == 200)
        let fayProfile = try await harness.server.sdk(
            .pushSubscribe, InProcessServer.subscription(token: "desk", time: 2_000), jwt: fay)
        #expect(fayProfile.profile?.subscription?.status == "subscribed")
        #expect(Set(try await Self.waiting(harness)) == [ada, boId, cyId, eveId])

        harness.clock.advance(seconds: 3_601)
        #expect(try await Self.run(runner, harness) == 4)
        #expect(harness.sender.pushes.isEmpty, "each person's device was handed on: theirs is suspended")
    }

    @Test(arguments: StoreFactory.all)
    func aProfileWithAnotherSubscribedDeviceKeepsItsWaits(factory: StoreFactory) async throws {
        let (harness, runner) = try await WelcomeTriggerTests.make(factory)
        defer { Task { await harness.finish() } }
        let signer = try await TestSigner.register(on: harness.server)
        let db = try await JWTAuthTests.databaseId(harness.server)
        _ = try await WelcomeTriggerTests.welcome(harness)
        // One anonymous profile holds two devices (its JWT names the family's account).
        let family = try signer.token(["db_id": db, "field_name": "account", "field_value": "family"])
        for token in ["phone", "tablet"] {
            #expect(
                try await harness.server.sdk(.pushSubscribe, InProcessServer.subscription(token: token), jwt: family)
                    .status == 200)
        }
        let kept = try await Self.waits(harness)
        #expect(kept.count == 1)

        try await Self.identity(harness, "phone", logIn: "ada")
        #expect(try await Self.waits(harness) == kept, "the tablet is still subscribed there")
        harness.clock.advance(seconds: 601)
        #expect(try await Self.run(runner, harness) == 1)
        #expect(harness.sentTokens == ["tablet"])
    }

    /// The store's move, state by state, on a message with re-entry: a wait the target lacks moves
    /// with its due time; the target's own wait, or its row that forbids re-entry yet, wins; a row
    /// that allows it takes the wait; the source keeps its own row between waits.
    @Test(arguments: StoreFactory.all)
    func theMoveKeepsTheTargetsStateAndTheSourcesHistory(factory: StoreFactory) async throws {
        let (harness, _, _) = try await TriggerReentryTests.make(factory)
        defer { Task { await harness.finish() } }
        let day: Int64 = 86_400_000
        var messages: [Int64] = []
        for goal in ["a", "b", "c", "d"] {
            let reply = try await harness.create([
                "title": goal, "trigger": ["event_name": goal, "reentry_after_minutes": 1440],
                "audience": ["type": "resource", "resource_id": harness.resourceId],
            ])
            let publicId = try #require(reply.json["id"] as? String, "\(reply.errorText)")
            messages.append(
                try #require(try await harness.server.store.read { try $0.message(publicId: publicId) }?.id))
        }
        let source = try await TriggerDeviceTests.internalId(harness, try await harness.subscribe("source"))
        let target = try await TriggerDeviceTests.internalId(harness, try await harness.subscribe("target"))
        let now: Int64 = 100 * day
        let (a, b, c, d) = (messages[0], messages[1], messages[2], messages[3])
        let all = messages
        let moved = try await harness.server.store.write { tx -> Int in
            // A row between waits: the message went to `profile` at `wentAt`.
            func went(_ message: Int64, _ profile: Int64, at wentAt: Int64) throws {
                try tx.armTrigger(messageId: message, profileId: profile, dueAt: 0, wentBefore: nil)
                _ = try tx.takeTriggerRun(messageId: message, profileId: profile, now: 0, keep: true)
                try tx.noteTriggerWent(messageId: message, profileId: profile, now: wentAt)
            }
            try went(d, source, at: now - 10 * day)
            try went(c, target, at: now - day / 2)
            try went(d, target, at: now - 2 * day)
            for message in all {
                try tx.armTrigger(messageId: message, profileId: source, dueAt: now + 1_000, wentBefore: now - day)
            }
            try tx.armTrigger(messageId: b, profileId: target, dueAt: now + 5_000, wentBefore: nil)
            let triggers = all.map {
                TriggerDirectory.Entry(messageId: $0, eventName: "x", delay: 0, reentry: day)
            }
            return try tx.moveTriggerWaits(from: source, to: target, triggers: triggers, now: now)
        }
        #expect(moved == 2, "a's and d's")
        let rows = try await harness.server.store.read { tx in
            try integerRows(
                tx,
                "SELECT message_id, profile_id, COALESCE(due_at, -1), round, COALESCE(went_at, -1) FROM trigger_runs "
                    + "ORDER BY message_id, profile_id", [], columns: 5)
        }
        #expect(
            rows == [
                [a, target, now + 1_000, 1, -1],
                [b, target, now + 5_000, 1, -1],
                [c, target, -1, 2, now - day / 2],
                [d, source, -1, 2, now - 10 * day],
                [d, target, now + 1_000, 2, now - 2 * day],
            ], "\(rows)")
    }
}

/// The move reads a person's waits by the key of `trigger_runs`, one probe a triggered message of
/// the project, not every wait (there is no index by person, and none is needed).
@Suite struct TriggerLogInPlanTests {
    @Test func sqliteFindsAPersonsWaitsByTheKey() async throws {
        let server = try await InProcessServer()
        defer { Task { await server.finish() } }
        let plan = try await server.store.read { tx in
            try #require(tx as? SQLiteTransaction).database
                .query("EXPLAIN QUERY PLAN " + SQLiteTransaction.personWaitsQuery(messages: 3), [1, 1, 2, 3])
                .map { $0.string(3) ?? "" }.joined(separator: "; ")
        }
        #expect(plan.contains("SEARCH trigger_runs USING INDEX sqlite_autoindex_trigger_runs_1"), "\(plan)")
        #expect(!plan.contains("SCAN trigger_runs"), "\(plan)")
    }

    @Test(.enabled(if: PostgresTestDatabase.url != nil))
    func postgresGenericPlanFindsAPersonsWaitsByTheKey() async throws {
        let connection = try PostgresConnection(url: try await PostgresConnection.migratedSchema())
        // 20,000 waits of 20 messages, analyzed; their messages' and profiles' rows are left out (no
        // foreign key checks on this session).
        try connection.execute("SET session_replication_role = replica")
        try connection.execute(
            """
            INSERT INTO trigger_runs (message_id, profile_id, due_at)
            SELECT n % 20, n, n FROM generate_series(1, 20000) n;
            ANALYZE trigger_runs
            """)
        try connection.prepare("waits", SQLiteTransaction.personWaitsQuery(messages: 3))
        let plan = try connection.plan("waits", ["1", "1", "2", "3"])
        #expect(plan.contains("trigger_runs_pkey"), "\(plan)")
        #expect(!plan.contains("Seq Scan"), "\(plan)")
    }
}
