import Foundation
import TernProtocol
import TernTestSupport
import Testing

@testable import TernServer

/// A message's conversions: its devices that opened a push and then reached a goal naming it
/// (`send_message_id`), in the funnel and per A/B version; kept once the rows per device go; and
/// an A/B test whose server-picked winner is the most conversions per device (of one goal, when
/// `winner_goal` names it).
@Suite struct ConversionTests {
    static func post(_ harness: DeliveryHarness, goals: [(pushId: String, name: String)]) async throws {
        let reply = try await harness.server.sdk(
            .eventPost,
            [
                "events": goals.enumerated().map { index, goal in
                    [
                        "sid": "shop", "client_id": "c-\(index)", "event_name": goal.name,
                        "send_message_id": goal.pushId,
                        "time": 5_000,
                    ] as [String: Any]
                }
            ])
        try #require(reply.status == 200, "\(reply.errorText)")
    }

    static func open(_ harness: DeliveryHarness, _ pushIds: some Sequence<String>) async throws {
        let reply = try await harness.server.sdk(
            .eventPush, ["events": pushIds.map { ["message_id": $0, "type": "open", "time": 3000] }])
        try #require(reply.status == 200, "\(reply.errorText)")
    }

    @Test(arguments: StoreFactory.all)
    func aConversionIsAnOpenAGoalFollowed(factory: StoreFactory) async throws {
        let harness = try await DeliveryHarness.make(store: factory)
        defer { Task { await harness.finish() } }
        _ = try await harness.server.admin(
            "POST", "/projects/\(harness.server.bootstrap.projectId)/pixels", json: ["sid": "shop"])
        for index in 0..<6 { try await harness.subscribe("device-\(index)") }
        let id = try await harness.send(["type": "resource", "resource_id": harness.resourceId])
        while try await harness.engine.drain() > 0 {}
        let pushIds = try harness.sender.pushes.map { try MessageVariantTests.shown($0).pushId }.sorted()
        try #require(pushIds.count == 6)
        // Three opened; two of them converted (one twice); a goal naming an unopened push, one
        // naming a push id no device was sent, and one of another message convert nothing.
        try await Self.open(harness, pushIds.prefix(3))
        try await Self.post(
            harness,
            goals: [
                (pushIds[0], "purchase"), (pushIds[0], "purchase"), (pushIds[1], "signup"), (pushIds[4], "purchase"),
                ("\(id).999999", "purchase"), ("m_other.1", "purchase"),
            ])
        var stats = try await harness.stats(id)
        #expect(stats.int("opened") == 3 && stats.int("converted") == 2, "\(stats)")

        // Once the rows per device go, the funnel keeps the count.
        let later = ServerClock.milliseconds() + 2 * 86_400_000
        var retention = DeliveryRetention(
            store: harness.server.store, days: 1, logger: Logger(minimum: .error, sink: { _ in }), clock: { later })
        retention.stepRows = 2
        #expect(try await retention.pass().messages == 1)
        stats = try await harness.stats(id)
        #expect(stats["deliveries_removed_at"] != nil && stats.int("converted") == 2, "\(stats)")
    }

    @Test(arguments: StoreFactory.all)
    func theServerPicksTheVersionWithTheMostConversionsPerDevice(factory: StoreFactory) async throws {
        let harness = try await DeliveryHarness.make(store: factory)
        defer { Task { await harness.finish() } }
        _ = try await harness.server.admin(
            "POST", "/projects/\(harness.server.bootstrap.projectId)/pixels", json: ["sid": "shop"])
        for index in 0..<60 { try await harness.subscribe("device-\(index)") }
        var made: [String] = []
        for goal in [nil, "purchase"] as [String?] {
            var extra: [String: Any] = [
                "variants": [[:], ["title": "B"]], "test_audience_percent": 50, "winner_after_minutes": 1,
                "winner_by": "conversions",
            ]
            if let goal { extra["winner_goal"] = goal }
            made.append(try await harness.send(["type": "resource", "resource_id": harness.resourceId], extra: extra))
        }
        while try await harness.engine.drain() > 0 {}
        for id in made {
            let ids = try harness.sender.pushes.map { try MessageVariantTests.shown($0).pushId }.filter {
                $0.hasPrefix(id + ".")
            }
            let a = ids.filter { $0.hasPrefix(id + ".a.") }
            let b = ids.filter { $0.hasPrefix(id + ".b.") }
            try #require(a.count >= 4 && b.count >= 4, "\(a.count) \(b.count)")
            // a: four opens, one purchase and two sign-ups; b: two opens, both purchases. By opens, a
            // wins; by conversions of any goal, a (3 against 2); by purchases, b.
            try await Self.open(harness, a.prefix(4) + b.prefix(2))
            try await Self.post(
                harness,
                goals: [(a[0], "purchase"), (a[1], "signup"), (a[2], "signup"), (b[0], "purchase"), (b[1], "purchase")])
            let stats = try await harness.stats(id)
            let versions = try #require(stats["variants"] as? [[String: Any]])
            #expect(versions.map { $0.int("converted") } == [3, 2], "\(versions)")
        }
        let picker = WinnerPicker(
            messages: MessageService(store: harness.server.store, clock: harness.clock.function),
            logger: Logger(minimum: .error, sink: { _ in }))
        harness.clock.advance(seconds: 61)
        let sent = try await picker.pass()
        let winners = Dictionary(
            uniqueKeysWithValues: sent.compactMap { $0.request.winnerOf }.map { ($0.messageId, $0.variant) })
        #expect(winners == [made[0]: "a", made[1]: "b"], "\(winners)")
        // The winner's own message is no test: it picks nothing.
        for view in sent { #expect(view.request.winnerBy == nil && view.request.winnerGoal == nil) }
    }

    @Test func aWinnerMetricIsCheckedWithWhatItNeeds() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.finish() } }
        let audience: [String: Any] = ["type": "resource", "resource_id": harness.resourceId]
        let ab: [String: Any] = ["title": "A", "variants": [[:], ["title": "B"]], "test_audience_percent": 50]
        for (extra, reason) in [
            (["winner_by": "conversions"], "winner_by goes with winner_after_minutes"),
            (["winner_after_minutes": 5, "winner_by": "clicks"], "winner_by must be opens or conversions"),
            (["winner_after_minutes": 5, "winner_goal": "purchase"], "winner_goal goes with winner_by conversions"),
            (
                ["winner_after_minutes": 5, "winner_by": "conversions", "winner_goal": ""],
                "winner_goal is empty"
            ),
        ] as [([String: Any], String)] {
            var json = ab.merging(extra) { _, new in new }
            json["audience"] = audience
            let reply = try await harness.create(json)
            #expect(reply.status == 400 && reply.errorText.contains(reason), "\(reason): \(reply.errorText)")
        }
    }
}
