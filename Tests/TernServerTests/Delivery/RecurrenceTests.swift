import Foundation
import TernProtocol
import TernTestSupport
import Testing

@testable import TernServer

/// Recurring messages: the message stands, and each time its copy goes to the audience as an
/// ordinary message naming it; each time makes one copy however many runners look, times missed
/// are skipped, `until` ends it, cancelling stops the copies to come.
@Suite struct RecurrenceTests {
    static func runner(_ harness: DeliveryHarness) -> RecurrenceRunner {
        RecurrenceRunner(
            messages: MessageService(store: harness.server.store, clock: harness.clock.function),
            logger: Logger(minimum: .error, sink: { _ in }))
    }

    static let day: Double = 86_400

    @Test(arguments: StoreFactory.all)
    func eachTimeACopyGoesToTheAudienceOnceUntilCancelled(factory: StoreFactory) async throws {
        let harness = try await DeliveryHarness.make(store: factory)
        defer { Task { await harness.finish() } }
        try await harness.subscribe("phone-a")
        let reply = try await harness.create([
            "title": "Today's picks", "repeat": ["every_days": 1],
            "audience": ["type": "resource", "resource_id": harness.resourceId],
        ])
        try #require(reply.status == 201, "\(reply.status) \(reply.errorText)")
        let id = try #require(reply.json["id"] as? String)
        #expect(reply.json["done"] as? Bool == false, "a recurring message stands")
        #expect(reply.json["next_copy_at"] as? Int64 != nil)
        while try await harness.engine.drain() > 0 {}
        #expect(harness.sender.pushes.isEmpty, "the message itself sends nothing")

        let runner = Self.runner(harness)
        let first = try await runner.pass()
        try #require(first.count == 1)
        #expect(first[0].recurringOf == id && first[0].id != id)
        #expect(try await runner.pass().isEmpty, "not again before its next time")
        try await harness.subscribe("phone-b")  // read at the next copy's time
        harness.clock.advance(seconds: Self.day + 1)
        async let one = runner.pass()
        async let two = runner.pass()
        let second = try await one + two
        #expect(second.count == 1, "one copy a time, however many runners look")
        while try await harness.engine.drain() > 0 {}
        #expect(harness.sentTokens == ["phone-a", "phone-a", "phone-b"])
        let copies = harness.sender.pushes.map { String($0.messageId) }
        #expect(Set(copies) == Set([first[0].id] + second.map(\.id)))

        let cancelled = try await harness.server.admin("POST", "/messages/\(id)/cancel")
        #expect(cancelled.status == 200, "\(cancelled.errorText)")
        #expect(cancelled.json["next_copy_at"] == nil)
        #expect(cancelled.json["done"] as? Bool == true)
        harness.clock.advance(seconds: 3 * Self.day)
        #expect(try await runner.pass().isEmpty, "no copy after the cancel")
    }

    @Test(arguments: StoreFactory.all)
    func timesMissedAreSkippedAndUntilEndsIt(factory: StoreFactory) async throws {
        let harness = try await DeliveryHarness.make(store: factory)
        defer { Task { await harness.finish() } }
        try await harness.subscribe("phone-a")
        let start = ServerClock.milliseconds()
        let reply = try await harness.create([
            "title": "Weekly", "repeat": ["every_days": 1, "until": start + 4 * 86_400_000 + 60_000],
            "audience": ["type": "resource", "resource_id": harness.resourceId],
        ])
        try #require(reply.status == 201, "\(reply.errorText)")
        let id = try #require(reply.json["id"] as? String)
        let runner = Self.runner(harness)
        #expect(try await runner.pass().count == 1)
        // No node ran for three days: one copy now, and the next time is tomorrow's, not three.
        harness.clock.advance(seconds: 3 * Self.day + 10)
        #expect(try await runner.pass().count == 1)
        #expect(try await runner.pass().isEmpty)
        harness.clock.advance(seconds: Self.day)
        #expect(try await runner.pass().count == 1, "the day of until")
        harness.clock.advance(seconds: Self.day)
        #expect(try await runner.pass().isEmpty, "past until")
        let shown = try await harness.server.admin("GET", "/messages/\(id)")
        #expect(shown.json["next_copy_at"] == nil && shown.json["done"] as? Bool == true, "\(shown.json)")
    }

    @Test(arguments: StoreFactory.all)
    func eachCopyReadsItsSegmentAsItIsThen(factory: StoreFactory) async throws {
        let harness = try await DeliveryHarness.make(store: factory)
        defer { Task { await harness.finish() } }
        try await harness.subscribe("gold-phone", fields: ["plan": "gold"])
        try await harness.subscribe("free-phone", fields: ["plan": "free"])
        let project = harness.server.bootstrap.projectId
        let made = try await harness.server.admin(
            "POST", "/segments",
            json: [
                "project_id": project, "name": "gold", "filter": ["field": "fields.plan", "op": "=", "value": "gold"],
            ])
        try #require(made.status == 201, "\(made.errorText)")
        let segment = try #require(made.json["id"] as? Int)
        let reply = try await harness.create([
            "title": "For our members", "repeat": ["every_days": 1],
            "audience": ["type": "segment", "segment_id": segment],
        ])
        try #require(reply.status == 201, "\(reply.errorText)")
        let runner = Self.runner(harness)
        #expect(try await runner.pass().count == 1)
        while try await harness.engine.drain() > 0 {}
        #expect(harness.sentTokens == ["gold-phone"])
        // The segment is edited: the next copy goes to whom it matches then.
        let edited = try await harness.server.admin(
            "PATCH", "/segments/\(segment)", json: ["filter": ["field": "fields.plan", "op": "=", "value": "free"]])
        try #require(edited.status == 200, "\(edited.errorText)")
        harness.clock.advance(seconds: Self.day + 1)
        #expect(try await runner.pass().count == 1)
        while try await harness.engine.drain() > 0 {}
        #expect(harness.sentTokens == ["free-phone", "gold-phone"])
    }

    @Test func whatDoesNotGoWithRepeatIsRefusedByName() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.finish() } }
        let audience: [String: Any] = ["type": "resource", "resource_id": harness.resourceId]
        for (body, fragment) in [
            (["repeat": ["every_days": 0]], "repeat.every_days must be 1 to 90"),
            (["repeat": ["every_days": 91]], "repeat.every_days must be 1 to 90"),
            (["repeat": ["every_days": 1, "until": 5]], "repeat.until must be at or after the first time"),
            (["repeat": ["every_days": 1], "test": true], "test does not go with repeat"),
            (
                ["repeat": ["every_days": 1], "trigger": ["event_name": "x"]],
                "does not go with"
            ),
        ] as [([String: Any], String)] {
            var json = body
            json["title"] = "Hi"
            json["audience"] = audience
            let reply = try await harness.create(json)
            #expect(reply.status == 400, "\(body)")
            #expect(reply.errorText.contains(fragment), "\(reply.errorText)")
        }
    }
}
