import Foundation
import TernProtocol
import TernTestSupport
import Testing

@testable import TernServer

/// Triggered messages with `reentry_after_minutes`: a person who reaches the goal again once that
/// long has passed since the message last went to them gets it again, through the message's next
/// round (a message row of its own, made once however many runners look); sooner, or while their
/// wait runs, nothing; a cancelling goal ends only the wait running; cancelling the message stops
/// its rounds; its statistics sum the rounds.
@Suite struct TriggerReentryTests {
    typealias Person = TriggerTests.Person

    /// A harness with the pixel the goals name, and a runner on its clock.
    static func make(_ factory: StoreFactory) async throws -> (DeliveryHarness, TestSigner, TriggerRunner) {
        let harness = try await DeliveryHarness.make(store: factory)
        let signer = try await TestSigner.register(on: harness.server)
        _ = try await harness.server.admin(
            "POST", "/projects/\(harness.server.bootstrap.projectId)/pixels", json: ["sid": "shop"])
        let runner = TriggerRunner(
            messages: MessageService(store: harness.server.store, clock: harness.clock.function),
            logger: Logger(minimum: .error, sink: { _ in }))
        return (harness, signer, runner)
    }

    /// The cart reminder: `trigger` with these minutes, to the harness's resource; its id.
    static func reminder(_ harness: DeliveryHarness, _ trigger: [String: Any]) async throws -> String {
        var trigger = trigger
        trigger["event_name"] = "cart_abandoned"
        let reply = try await harness.create([
            "title": "Your cart is waiting", "trigger": trigger,
            "audience": ["type": "resource", "resource_id": harness.resourceId],
        ])
        try #require(reply.status == 201, "\(reply.status) \(reply.errorText)")
        return try #require(reply.json["id"] as? String)
    }

    /// `person` leaves a cart twice, `seconds` apart, and each wait is taken at once (the reminder
    /// has no delay); the pushes go.
    static func twoCarts(
        _ harness: DeliveryHarness, _ runner: TriggerRunner, _ person: Person, apart seconds: Double
    ) async throws {
        for _ in 0..<2 {
            try await TriggerTests.goal(harness, person, "cart_abandoned")
            #expect(try await runner.pass() == 1)
            harness.clock.advance(seconds: seconds)
        }
        while try await harness.engine.drain() > 0 {}
    }

    /// The push ids each token was sent, in order.
    static func pushIds(_ harness: DeliveryHarness) throws -> [String: [String]] {
        var ids: [String: [String]] = [:]
        for push in harness.sender.pushes {
            ids[push.token, default: []].append(try MessageVariantTests.shown(push).pushId)
        }
        return ids
    }

    @Test(arguments: StoreFactory.all)
    func aPersonWhoComesBackAfterTheReentryTimeGetsTheNextRound(factory: StoreFactory) async throws {
        let (harness, signer, runner) = try await Self.make(factory)
        defer { Task { await harness.finish() } }
        let ana = try await TriggerTests.person(harness, signer, "ana")
        let bo = try await TriggerTests.person(harness, signer, "bo")
        let id = try await Self.reminder(harness, ["delay_minutes": 60, "reentry_after_minutes": 1440])

        for person in [ana, bo] { try await TriggerTests.goal(harness, person, "cart_abandoned") }
        harness.clock.advance(seconds: 3_601)
        #expect(try await runner.pass() == 2)
        while try await harness.engine.drain() > 0 {}
        // Both come back within the day: no wait starts, nothing more goes.
        for person in [ana, bo] { try await TriggerTests.goal(harness, person, "cart_abandoned") }
        harness.clock.advance(seconds: 3_601)
        #expect(try await runner.pass() == 0, "within the re-entry time")
        // A day after it went, ana's next cart brings round 2.
        harness.clock.advance(seconds: 86_400)
        try await TriggerTests.goal(harness, ana, "cart_abandoned")
        harness.clock.advance(seconds: 3_601)
        #expect(try await runner.pass() == 1)
        while try await harness.engine.drain() > 0 {}
        let sent = try Self.pushIds(harness)
        #expect(sent[bo.token]?.count == 1, "\(sent)")
        let anas = try #require(sent[ana.token])
        try #require(anas.count == 2, "\(sent)")
        #expect(anas[0].hasPrefix(id + ".") && anas[1].hasPrefix(id + "-2."), "\(anas)")

        // The round is a message of its own, named by the message, which counts its rounds.
        let round = try await harness.server.admin("GET", "/messages/\(id)-2")
        #expect(round.status == 200, "\(round.errorText)")
        #expect(round.json["trigger_round_of"] as? String == id && round.json["trigger_round"] as? Int == 2)
        #expect(round.json["done"] as? Bool == false, "a round stands while its message does")
        let parent = try await harness.server.admin("GET", "/messages/\(id)")
        #expect(parent.json["trigger_rounds"] as? Int == 2, "\(parent.json)")

        // ana opens round 2: its stats count it, and the message's sum both rounds.
        let opened = try await harness.server.sdk(
            .eventPush, ["events": [["message_id": anas[1], "type": "open", "time": 9_000]]], jwt: ana.jwt)
        try #require(opened.status == 200, "\(opened.errorText)")
        let roundStats = try await harness.stats("\(id)-2")
        #expect(roundStats.int("targeted") == 1 && roundStats.int("opened") == 1, "\(roundStats)")
        let stats = try await harness.stats(id)
        #expect(stats.int("targeted") == 2 && stats.int("opened") == 0, "its own round: \(stats)")
        let all = try #require(stats["all_rounds"] as? [String: Any], "\(stats)")
        #expect(all.int("rounds") == 2 && all.int("targeted") == 3 && all.int("sent") == 3, "\(all)")
        #expect(all.int("opened") == 1 && all.int("queued") == 0, "\(all)")
    }

    @Test(arguments: StoreFactory.all)
    func aCancellingGoalEndsOnlyTheWaitRunning(factory: StoreFactory) async throws {
        let (harness, signer, runner) = try await Self.make(factory)
        defer { Task { await harness.finish() } }
        let ana = try await TriggerTests.person(harness, signer, "ana")
        let bo = try await TriggerTests.person(harness, signer, "bo")
        let id = try await Self.reminder(
            harness, ["delay_minutes": 10, "cancel_event_name": "purchase", "reentry_after_minutes": 60])
        try await TriggerTests.goal(harness, ana, "cart_abandoned")
        harness.clock.advance(seconds: 601)
        #expect(try await runner.pass() == 1)

        // An hour on, ana leaves a cart and buys it; bo leaves one.
        harness.clock.advance(seconds: 3_600)
        try await TriggerTests.goal(harness, ana, "cart_abandoned")
        try await TriggerTests.goal(harness, ana, "purchase")
        try await TriggerTests.goal(harness, bo, "cart_abandoned")
        harness.clock.advance(seconds: 601)
        #expect(try await runner.pass() == 1, "bo's wait only")
        // Her purchase sent nothing, so her next cart brings the reminder, as round 2: the message
        // went to her once, and the cancel kept that.
        try await TriggerTests.goal(harness, ana, "cart_abandoned")
        harness.clock.advance(seconds: 601)
        #expect(try await runner.pass() == 1)
        while try await harness.engine.drain() > 0 {}
        let sent = try Self.pushIds(harness)
        #expect(sent[bo.token]?.map { $0.hasPrefix(id + ".") } == [true], "\(sent)")
        #expect(sent[ana.token]?.map { $0.hasPrefix(id + "-2.") } == [false, true], "\(sent)")
        let waits = try await harness.server.store.read { try $0.dueTriggerRuns(now: Int64.max, limit: 10) }
        #expect(waits.isEmpty, "\(waits)")
    }

    /// Two runners take ana's one wait: one takes it, round 2 is made once, one push goes. Two
    /// writers asking for round 3 at the same moment get the same message.
    @Test(arguments: StoreFactory.all)
    func twoRunnersMakeOneRoundAndOneDelivery(factory: StoreFactory) async throws {
        let (harness, signer, runner) = try await Self.make(factory)
        defer { Task { await harness.finish() } }
        let other = TriggerRunner(
            messages: MessageService(store: harness.server.store, clock: harness.clock.function),
            logger: Logger(minimum: .error, sink: { _ in }))
        let ana = try await TriggerTests.person(harness, signer, "ana")
        let id = try await Self.reminder(harness, ["reentry_after_minutes": 1])
        try await TriggerTests.goal(harness, ana, "cart_abandoned")
        #expect(try await runner.pass() == 1)
        harness.clock.advance(seconds: 61)
        try await TriggerTests.goal(harness, ana, "cart_abandoned")
        async let first = runner.pass()
        async let second = other.pass()
        #expect(try await first + second == 1)
        while try await harness.engine.drain() > 0 {}
        #expect(harness.sentTokens == [ana.token, ana.token])
        let store = harness.server.store
        let message = try #require(try await store.read { try $0.message(publicId: id) })
        let rounds = try await store.read { try $0.triggerRounds(of: id) }
        #expect(rounds.map(\.publicId) == ["\(id)-2"])
        #expect(try await harness.stats("\(id)-2").int("targeted") == 1)

        let now = harness.clock.milliseconds
        async let made = store.write { try $0.triggerRound(of: message, round: 3, now: now).id }
        async let found = store.write { try $0.triggerRound(of: message, round: 3, now: now).id }
        #expect(try await made == found)
        #expect(try await store.read { try $0.triggerRounds(of: id) }.map(\.publicId) == ["\(id)-2", "\(id)-3"])
    }

    /// Cancelling the message ends the waits and cancels its rounds, which are done once their
    /// pushes went; a round is not cancelled alone.
    @Test(arguments: StoreFactory.all)
    func cancellingTheMessageStopsItsRounds(factory: StoreFactory) async throws {
        let (harness, signer, runner) = try await Self.make(factory)
        defer { Task { await harness.finish() } }
        let ana = try await TriggerTests.person(harness, signer, "ana")
        let id = try await Self.reminder(harness, ["reentry_after_minutes": 1])
        try await Self.twoCarts(harness, runner, ana, apart: 61)
        let alone = try await harness.server.admin("POST", "/messages/\(id)-2/cancel")
        #expect(alone.status == 409 && alone.errorText.contains("cancel \(id)"), "\(alone.errorText)")

        try await TriggerTests.goal(harness, ana, "cart_abandoned")
        let cancelled = try await harness.server.admin("POST", "/messages/\(id)/cancel")
        #expect(cancelled.status == 200, "\(cancelled.errorText)")
        #expect(try await runner.pass() == 0, "her wait ended with the message")
        try await TriggerTests.goal(harness, ana, "cart_abandoned")
        #expect(try await runner.pass() == 0, "and no goal starts one")
        let round = try await harness.server.admin("GET", "/messages/\(id)-2")
        #expect(round.json["cancelled_at"] != nil && round.json["done"] as? Bool == true, "\(round.json)")
        #expect(harness.sender.pushes.count == 2)
        let stats = try await harness.stats(id)
        #expect(stats["done"] as? Bool == true && (stats["all_rounds"] as? [String: Any])?.int("sent") == 2)
    }

    /// Without `reentry_after_minutes` nothing of this shows: no rounds, no sums, and a person's
    /// later goal makes no round.
    @Test func withoutReentryThereAreNoRounds() async throws {
        let (harness, signer, runner) = try await Self.make(.sqlite)
        defer { Task { await harness.finish() } }
        let ana = try await TriggerTests.person(harness, signer, "ana")
        let id = try await Self.reminder(harness, [:])
        try await Self.twoCarts(harness, runner, ana, apart: 86_400)
        #expect(harness.sender.pushes.count == 1)
        #expect(try await harness.server.store.read { try $0.triggerRounds(of: id) }.isEmpty)
        let view = try await harness.server.admin("GET", "/messages/\(id)")
        #expect(view.json["trigger_rounds"] == nil && view.json["trigger_round_of"] == nil, "\(view.json)")
        #expect(try await harness.stats(id)["all_rounds"] == nil)
    }

    /// Once the message is cancelled and its rounds' rows go (`--delivery-retention-days`), the
    /// sum of its rounds reads what each kept.
    @Test(arguments: StoreFactory.all)
    func theRoundsSumStaysWhenTheirRowsGo(factory: StoreFactory) async throws {
        let (harness, signer, runner) = try await Self.make(factory)
        defer { Task { await harness.finish() } }
        let ana = try await TriggerTests.person(harness, signer, "ana")
        let id = try await Self.reminder(harness, ["reentry_after_minutes": 1])
        try await Self.twoCarts(harness, runner, ana, apart: 61)
        for pushId in try #require(try Self.pushIds(harness)[ana.token]) {
            let reply = try await harness.server.sdk(
                .eventPush, ["events": [["message_id": pushId, "type": "open", "time": 9_000]]], jwt: ana.jwt)
            try #require(reply.status == 200, "\(reply.errorText)")
        }
        _ = try await harness.server.admin("POST", "/messages/\(id)/cancel")
        let before = try #require(try await harness.stats(id)["all_rounds"] as? [String: Any])
        #expect(before.int("opened") == 2 && before.int("sent") == 2, "\(before)")

        let later = harness.clock.milliseconds + 2 * DeliveryRetentionTests.day
        let retention = DeliveryRetention(
            store: harness.server.store, days: 1, logger: Logger(minimum: .error, sink: { _ in }), clock: { later })
        #expect(try await retention.pass().messages == 2, "the message and its round")
        let after = try await harness.stats(id)
        #expect(after["deliveries_removed_at"] != nil)
        let kept = try #require(after["all_rounds"] as? [String: Any])
        #expect(NSDictionary(dictionary: kept) == NSDictionary(dictionary: before), "\(kept) \(before)")
    }
}
