import Foundation
import TernProtocol
import TernTestSupport
import Testing

@testable import TernServer

/// `PUT /admin/messages/{id}` on a standing triggered message: each person's send from then on,
/// in any round (the rounds made before the edit too), takes the new request; the goals, delay and
/// re-entry time take effect for the waits that start after it; the edit keeps it triggered, and
/// a round, a cancelled message or another message's edit bringing a trigger are refused.
@Suite struct TriggeredMessageEditTests {
    typealias Person = TriggerTests.Person

    /// The alert titles each token was sent, in order, with the push ids' rounds (`1`, `2`, …).
    static func sent(_ harness: DeliveryHarness, _ id: String) throws -> [String: [String]] {
        var sent: [String: [String]] = [:]
        for push in harness.sender.pushes {
            let json = try #require(try JSONSerialization.jsonObject(with: push.payload) as? [String: Any])
            let alert = (json["aps"] as? [String: Any])?["alert"] as? [String: Any]
            let title = try #require(alert?["title"] as? String, "\(json)")
            let pushId = try MessageVariantTests.shown(push).pushId
            let round = pushId.hasPrefix(id + "-") ? String(pushId.dropFirst(id.count + 1).prefix { $0 != "." }) : "1"
            sent[push.token, default: []].append("\(round) \(title)")
        }
        return sent
    }

    static func request(_ harness: DeliveryHarness, title: String, trigger: [String: Any]) -> [String: Any] {
        ["title": title, "trigger": trigger, "audience": ["type": "resource", "resource_id": harness.resourceId]]
    }

    @Test(arguments: StoreFactory.all)
    func everySendAfterTheEditTakesItInEveryRound(factory: StoreFactory) async throws {
        let (harness, signer, runner) = try await TriggerReentryTests.make(factory)
        defer { Task { await harness.finish() } }
        let ana = try await TriggerTests.person(harness, signer, "ana")
        let bo = try await TriggerTests.person(harness, signer, "bo")
        let id = try await TriggerReentryTests.reminder(harness, ["reentry_after_minutes": 1])
        // ana goes through rounds 1 and 2 as it was: round 2 is made before the edit.
        try await TriggerReentryTests.twoCarts(harness, runner, ana, apart: 61)
        // bo's wait starts before the edit, and keeps its time (none).
        try await TriggerTests.goal(harness, bo, "cart_abandoned")

        let edited = try await MessageEditTests.edit(
            harness, id,
            Self.request(
                harness, title: "Still there?",
                trigger: [
                    "event_name": "cart_left", "delay_minutes": 10, "cancel_event_name": "purchase",
                    "reentry_after_minutes": 5,
                ]))
        try #require(edited.status == 200, "\(edited.errorText)")
        #expect(edited.json["edited_at"] != nil && edited.json["id"] as? String == id, "\(edited.json)")
        #expect(try await runner.pass() == 1, "bo's wait, started before the edit, goes now")
        while try await harness.engine.drain() > 0 {}
        #expect(try Self.sent(harness, id)[bo.token] == ["1 Still there?"], "the edit's request, to a wait made before")

        // The old goal starts nothing now; the new one waits the new delay.
        harness.clock.advance(seconds: 301)
        try await TriggerTests.goal(harness, ana, "cart_abandoned")
        harness.clock.advance(seconds: 601)
        #expect(try await runner.pass() == 0, "cart_abandoned is no longer its goal")
        try await TriggerTests.goal(harness, ana, "cart_left")
        harness.clock.advance(seconds: 599)
        #expect(try await runner.pass() == 0, "the new delay: ten minutes")
        harness.clock.advance(seconds: 2)
        #expect(try await runner.pass() == 1)
        // bo, five minutes on: his round 2 was made before the edit, and takes it.
        try await TriggerTests.goal(harness, bo, "cart_left")
        try await TriggerTests.goal(harness, bo, "purchase")
        harness.clock.advance(seconds: 601)
        #expect(try await runner.pass() == 0, "the new cancelling goal ended bo's wait")
        try await TriggerTests.goal(harness, bo, "cart_left")
        harness.clock.advance(seconds: 601)
        #expect(try await runner.pass() == 1)
        while try await harness.engine.drain() > 0 {}

        let sent = try Self.sent(harness, id)
        #expect(sent[ana.token] == ["1 Your cart is waiting", "2 Your cart is waiting", "3 Still there?"], "\(sent)")
        #expect(sent[bo.token] == ["1 Still there?", "2 Still there?"], "\(sent)")
        let round = try await harness.server.admin("GET", "/messages/\(id)-2")
        #expect((round.json["request"] as? [String: Any])?["title"] as? String == "Still there?", "\(round.json)")
        #expect(round.json["edited_at"] != nil && round.json["trigger_round_of"] as? String == id, "\(round.json)")
    }

    @Test(arguments: StoreFactory.all)
    func whatAnEditCannotBringIsRefusedAndChangesNothing(factory: StoreFactory) async throws {
        let (harness, signer, runner) = try await TriggerReentryTests.make(factory)
        defer { Task { await harness.finish() } }
        let ana = try await TriggerTests.person(harness, signer, "ana")
        let id = try await TriggerReentryTests.reminder(harness, ["reentry_after_minutes": 1])
        try await TriggerReentryTests.twoCarts(harness, runner, ana, apart: 61)
        let audience: [String: Any] = ["type": "resource", "resource_id": harness.resourceId]

        let round = try await MessageEditTests.edit(
            harness, "\(id)-2", Self.request(harness, title: "x", trigger: ["event_name": "cart_abandoned"]))
        #expect(round.status == 409, "\(round.errorText)")
        #expect(round.errorText.contains("round 2 of the triggered message \(id): edit \(id)"), "\(round.errorText)")
        let untriggered = try await MessageEditTests.edit(harness, id, ["title": "x", "audience": audience])
        #expect(untriggered.status == 400 && untriggered.errorText.contains("its edit keeps trigger"))
        let once = try await MessageEditTests.edit(
            harness, id, Self.request(harness, title: "x", trigger: ["event_name": "cart_abandoned"]))
        #expect(
            once.status == 400 && once.errorText.contains("its edit keeps reentry_after_minutes"), "\(once.errorText)")
        let timed = try await MessageEditTests.edit(
            harness, id,
            Self.request(harness, title: "x", trigger: ["event_name": "cart_abandoned", "reentry_after_minutes": 1])
                .merging(["send_at": harness.clock.milliseconds + 60_000]) { $1 })
        #expect(
            timed.status == 400 && timed.errorText.contains("send_at does not go with trigger"), "\(timed.errorText)")

        let scheduled = try await harness.send(
            audience, extra: ["title": "Later", "send_at": ServerClock.milliseconds() + 3_600_000])
        let brought = try await MessageEditTests.edit(
            harness, scheduled, Self.request(harness, title: "x", trigger: ["event_name": "cart_abandoned"]))
        #expect(brought.status == 400, "\(brought.errorText)")
        #expect(brought.errorText.contains("trigger does not go with an edit of \(scheduled)"), "\(brought.errorText)")

        _ = try await harness.server.admin("POST", "/messages/\(id)/cancel")
        let cancelled = try await MessageEditTests.edit(
            harness, id,
            Self.request(harness, title: "x", trigger: ["event_name": "cart_abandoned", "reentry_after_minutes": 1]))
        #expect(cancelled.status == 409 && cancelled.errorText.contains("was cancelled"), "\(cancelled.errorText)")
        for shown in [id, "\(id)-2"] {
            let read = try await harness.server.admin("GET", "/messages/\(shown)")
            #expect((read.json["request"] as? [String: Any])?["title"] as? String == "Your cart is waiting")
            #expect(read.json["edited_at"] == nil, "\(read.json)")
        }
    }
}
