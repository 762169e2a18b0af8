import Foundation
import TernProtocol
import TernTestSupport
import Testing

@testable import TernServer

/// `variants`: an A/B test's versions. Each device gets the version its subscription falls in, with
/// that version's payload and a push id that names it; the stats count deliveries (by the same
/// arithmetic in SQL) and reports by version, and keep them once the rows per device go; each
/// person's inbox copy is their version; a bad split or a bad version is refused by name.
@Suite struct MessageVariantTests {
    /// How many of `ids` fall in each version of `percents`.
    static func shares(_ percents: [Int], ids: some Sequence<Int64>, messageId: Int64) -> [Int] {
        let split = MessageVariants.Split(percents: percents)
        var counts = Array(repeating: 0, count: percents.count)
        for id in ids { counts[split.index(subscriptionId: id, messageId: messageId)] += 1 }
        return counts
    }

    @Test func theAudienceSplitsAsThePercentsSay() {
        #expect(MessageVariants.split([.init(), .init(), .init()]).percents == [34, 33, 33])
        #expect(MessageVariants.split([.init(percent: 10), .init(percent: 90)]).percents == [10, 90])
        for (percents, ids) in [
            ([50, 50], Array(Int64(1)...10_000)),
            ([20, 30, 50], Array(Int64(1)...10_000)),
            // Every seventh subscription (an audience narrowed by a filter), and ids far apart.
            ([50, 50], (0..<10_000).map { Int64(5 + $0 * 7) }),
            ([10, 90], (0..<10_000).map { Int64(3_000_000_000) + Int64($0) * 1_000 }),
        ] as [([Int], [Int64])] {
            for messageId in [Int64(1), 977, 5_000_000_000] {
                let counts = Self.shares(percents, ids: ids, messageId: messageId)
                for (count, percent) in zip(counts, percents) {
                    #expect(abs(count - percent * 100) <= 150, "\(percents) of \(ids.count): \(counts)")
                }
            }
        }
        // A device is not in the same version of every test.
        let versions = (1...40).map {
            MessageVariants.Split(percents: [50, 50]).index(subscriptionId: 12, messageId: $0)
        }
        #expect(Set(versions).count == 2)
    }

    /// The counts by version are kept once the fan-out is done (they no longer change), not before.
    @Test func aFinishedTestsCountsAreCountedOnce() throws {
        let cache = VariantTargetCache()
        var message = StoreSuiteDeliveryTests.message(projectId: 1, resourceId: 1, publicId: "m-ab")
        message.id = 9
        var counted = 0
        let count = { () -> [Int64] in
            counted += 1
            return [Int64(counted), 0]
        }
        #expect(cache.targets(message, count: count) == [1, 0])
        #expect(cache.targets(message, count: count) == [2, 0], "still fanning out: counted again")
        message.fanOutDone = true
        #expect(cache.targets(message, count: count) == [3, 0])
        #expect(cache.targets(message, count: count) == [3, 0] && counted == 3)
    }

    @Test func aPushIdNamesItsVersionBetweenTheMessageAndTheDelivery() {
        #expect(
            PushRecipient.parts("m_3fa2.b.17").map { [$0.publicId, $0.variant, "\($0.deliveryId)"] } == [
                "m_3fa2", "b", "17",
            ])
        #expect(PushRecipient.parts("m_3fa2.17").map { [$0.publicId, $0.variant] } == ["m_3fa2", nil])
        #expect(PushRecipient.parts("m_3fa2.zz.17")?.publicId == "m_3fa2.zz", "not a version: no message has it")
    }

    /// The `tern.message_id` and alert of a sent push.
    static func shown(_ push: OutgoingPush) throws -> (pushId: String, title: String?, body: String?) {
        let json = try #require(try JSONSerialization.jsonObject(with: push.payload) as? [String: Any])
        let alert = (json["aps"] as? [String: Any])?["alert"] as? [String: Any]
        let tern = try #require(json[TernPushPayload.key] as? [String: Any])
        return (try #require(tern["message_id"] as? String), alert?["title"] as? String, alert?["body"] as? String)
    }

    @Test(arguments: StoreFactory.all)
    func eachDeviceGetsItsVersionAndTheStatsCountByVersion(factory: StoreFactory) async throws {
        var options = DeliveryEngine.Options()
        options.fanOut = FanOut(chunkSize: 7)
        let harness = try await DeliveryHarness.make(options: options, store: factory)
        defer { Task { await harness.finish() } }
        for index in 0..<40 { try await harness.subscribe("device-\(index)") }
        let reply = try await harness.create([
            "title": "Sale", "body": "30% off today",
            "variants": [["percent": 30], ["percent": 70, "title": "Last day", "body": "Ends tonight"]],
            "audience": ["type": "resource", "resource_id": harness.resourceId],
        ])
        try #require(reply.status == 201, "\(reply.errorText)")
        let id = try #require(reply.json["id"] as? String)
        #expect(((reply.json["request"] as? [String: Any])?["variants"] as? [[String: Any]])?.count == 2)
        while try await harness.engine.drain() > 0 {}
        let message = try #require(try await harness.server.store.read { try $0.message(publicId: id) })
        let rows = try await harness.deliveries(id)
        try #require(rows.count == 40 && harness.sender.pushes.count == 40)
        let subscriptionOf = Dictionary(uniqueKeysWithValues: rows.map { ($0.int("id"), $0.int("subscription_id")) })

        let split = MessageVariants.Split(percents: [30, 70])
        var pushIds: [[String]] = [[], []]
        for push in harness.sender.pushes {
            let version = split.index(
                subscriptionId: try #require(subscriptionOf[push.deliveryId]), messageId: message.id)
            let shown = try Self.shown(push)
            #expect(shown.pushId == "\(id).\(["a", "b"][version]).\(push.deliveryId)")
            #expect(
                version == 0
                    ? shown.title == "Sale" && shown.body == "30% off today"
                    : shown.title == "Last day" && shown.body == "Ends tonight", "\(shown)")
            pushIds[version].append(shown.pushId)
        }
        #expect(pushIds.allSatisfy { !$0.isEmpty }, "both versions went out: \(pushIds.map(\.count))")

        // Every device reports delivery; only version b's open.
        let reports =
            pushIds.joined().map { ["message_id": $0, "type": "delivery", "time": 2000] as [String: Any] }
            + pushIds[1].map { ["message_id": $0, "type": "open", "time": 3000] }
        let reported = try await harness.server.sdk(.eventPush, ["events": reports])
        try #require(reported.status == 200, "\(reported.errorText)")
        // A report names its delivery's version: under another letter, or none, it is no push of
        // this message and counts nowhere (a modified client could otherwise count an open twice).
        let forged = pushIds[1].flatMap { pushId in
            [pushId.replacingOccurrences(of: ".b.", with: "."), pushId.replacingOccurrences(of: ".b.", with: ".a.")]
                .map { ["message_id": $0, "type": "open", "time": 3000] as [String: Any] }
        }
        let forging = try await harness.server.sdk(.eventPush, ["events": forged])
        try #require(forging.status == 200, "\(forging.errorText)")
        #expect(
            harness.server.metrics.render().contains(
                "tern_push_events_ignored_total{reason=\"unknown_delivery\"} \(forged.count)\n"))
        let stats = try await harness.stats(id)
        #expect(
            stats.int("targeted") == 40 && stats.int("delivered") == 40
                && stats.int("opened") == Int64(pushIds[1].count))
        let variants = try #require(stats["variants"] as? [[String: Any]], "\(stats)")
        #expect(variants.map { $0["variant"] as? String } == ["a", "b"])
        #expect(variants.map { $0.int("percent") } == [30, 70])
        #expect(variants.map { $0.int("targeted") } == pushIds.map { Int64($0.count) }, "SQL's buckets are Swift's")
        #expect(variants.map { $0.int("delivered") } == pushIds.map { Int64($0.count) })
        #expect(variants.map { $0.int("opened") } == [0, Int64(pushIds[1].count)])

        // Once the rows per device go, the figures by version stay.
        let later = ServerClock.milliseconds() + DeliveryRetentionTests.day + 60_000
        var retention = DeliveryRetention(
            store: harness.server.store, days: 1, logger: Logger(minimum: .error, sink: { _ in }), clock: { later })
        retention.stepRows = 16
        _ = try await retention.pass()
        let after = try await harness.stats(id)
        #expect(after.int("deliveries_removed_at") == later)
        #expect(
            try #require(after["variants"] as? [[String: Any]]).map { $0 as NSDictionary }
                == variants.map { $0 as NSDictionary })
    }

    @Test func eachPersonsInboxKeepsTheirVersion() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.finish() } }
        var profiles: [String: String] = [:]
        for index in 0..<12 { profiles["device-\(index)"] = try await harness.subscribe("device-\(index)") }
        let id = try await harness.send(
            ["type": "resource", "resource_id": harness.resourceId],
            extra: ["inbox": true, "variants": [["title": "A"], ["title": "B", "click_url": "https://e.com/b"]]])
        while try await harness.engine.drain() > 0 {}
        var seen: Set<String> = []
        for push in harness.sender.pushes {
            let shown = try Self.shown(push)
            let profile = try #require(profiles[push.token])
            let inbox = try await harness.server.admin("GET", "/profiles/\(profile)/inbox")
            let kept = try #require((inbox.json["messages"] as? [[String: Any]])?.first, "\(inbox.json)")
            #expect(kept["title"] as? String == shown.title, "\(push.token)")
            #expect((kept["link"] as? String) == (shown.title == "B" ? "https://e.com/b" : nil))
            seen.insert(try #require(shown.title))
            #expect(shown.pushId.hasPrefix(id + (shown.title == "A" ? ".a." : ".b.")))
        }
        #expect(seen == ["A", "B"])
    }

    /// `test_audience_percent`: the test reaches its share of the audience, split among the versions;
    /// `…/winner` sends the winning version to the rest, once; no device gets both.
    @Test(arguments: StoreFactory.all)
    func aTestOfPartOfTheAudienceLeavesTheRestForItsWinner(factory: StoreFactory) async throws {
        var options = DeliveryEngine.Options()
        options.fanOut = FanOut(chunkSize: 16)
        let harness = try await DeliveryHarness.make(options: options, store: factory)
        defer { Task { await harness.finish() } }
        for index in 0..<100 { try await harness.subscribe("device-\(index)") }
        let reply = try await harness.create([
            "title": "Sale", "variants": [[:], ["title": "Last day"]], "test_audience_percent": 30,
            "audience": ["type": "resource", "resource_id": harness.resourceId],
        ])
        try #require(reply.status == 201, "\(reply.errorText)")
        let id = try #require(reply.json["id"] as? String)
        while try await harness.engine.drain() > 0 {}
        let test = try #require(try await harness.server.store.read { try $0.message(publicId: id) })
        let tested = try await harness.deliveries(id).map { $0.int("subscription_id") }
        #expect(tested.allSatisfy { MessageVariants.isTested(subscriptionId: $0, messageId: test.id, sample: 30) })
        #expect((15...45).contains(tested.count), "about 30 of 100: \(tested.count)")
        let split = MessageVariants.Split(percents: [50, 50], sample: 30)
        let byVersion = Dictionary(grouping: tested) { split.index(subscriptionId: $0, messageId: test.id) }
        #expect(byVersion.count == 2, "both versions in the test: \(byVersion.mapValues(\.count))")
        var stats = try await harness.stats(id)
        #expect(stats.int("targeted") == Int64(tested.count))
        let counted = try #require(stats["variants"] as? [[String: Any]]).map { $0.int("targeted") }
        #expect(counted == [Int64(byVersion[0]?.count ?? 0), Int64(byVersion[1]?.count ?? 0)], "\(counted)")
        let testPushes = harness.sender.pushes.count

        let winner = try await harness.server.admin("POST", "/messages/\(id)/winner", json: ["variant": "b"])
        try #require(winner.status == 201, "\(winner.errorText)")
        let winnerId = try #require(winner.json["id"] as? String)
        let of = (winner.json["request"] as? [String: Any])?["winner_of"] as? [String: Any]
        #expect(of?["message_id"] as? String == id && of?["variant"] as? String == "b", "\(String(describing: of))")
        while try await harness.engine.drain() > 0 {}
        let rest = try await harness.deliveries(winnerId).map { $0.int("subscription_id") }
        #expect(
            Set(rest).isDisjoint(with: tested) && Set(rest).union(tested).count == 100,
            "\(rest.count) + \(tested.count)")
        for push in harness.sender.pushes.dropFirst(testPushes) {
            let shown = try Self.shown(push)
            #expect(
                shown.title == "Last day" && shown.pushId.hasPrefix(winnerId + ".") && !shown.pushId.contains(".b."))
        }
        let again = try await harness.server.admin("POST", "/messages/\(id)/winner", json: ["variant": "a"])
        #expect(again.status == 409 && again.errorText.contains(winnerId), "\(again.errorText)")
        #expect(
            try await harness.server.admin("GET", "/messages/\(id)").json["winner_message_id"] as? String == winnerId)
        stats = try await harness.stats(winnerId)
        #expect(stats.int("targeted") == Int64(100 - tested.count) && stats["variants"] == nil)
    }

    /// `winner_after_minutes`: when the time comes, the server sends the version with the most opens
    /// per device to the rest, once, even with two pickers at the same moment; before it, nothing.
    @Test(arguments: StoreFactory.all)
    func theServerSendsTheWinnerWhenItsTimeComes(factory: StoreFactory) async throws {
        let harness = try await DeliveryHarness.make(store: factory)
        defer { Task { await harness.finish() } }
        for index in 0..<100 { try await harness.subscribe("device-\(index)") }
        let reply = try await harness.create([
            "title": "Sale", "variants": [[:], ["title": "Last day"]], "test_audience_percent": 40,
            "winner_after_minutes": 90, "audience": ["type": "resource", "resource_id": harness.resourceId],
        ])
        try #require(reply.status == 201, "\(reply.errorText)")
        let id = try #require(reply.json["id"] as? String)
        let due = reply.json.int("created_at") + 90 * 60_000
        #expect(reply.json.int("winner_due_at") == due)
        while try await harness.engine.drain() > 0 {}
        let tested = harness.sender.pushes.count
        // A few of version b's devices open it, more of version a's go unopened.
        let opens = try harness.sender.pushes.map { try Self.shown($0).pushId }.filter { $0.contains(".b.") }.prefix(3)
        try #require(opens.count == 3)
        let reported = try await harness.server.sdk(
            .eventPush, ["events": opens.map { ["message_id": $0, "type": "open", "time": 3000] }])
        try #require(reported.status == 200, "\(reported.errorText)")

        let picker = WinnerPicker(
            messages: MessageService(store: harness.server.store, clock: harness.clock.function),
            logger: Logger(minimum: .error, sink: { _ in }), metrics: harness.metrics)
        harness.clock.advance(seconds: Double(due - harness.clock.milliseconds) / 1000 - 1)
        #expect(try await picker.pass().isEmpty, "not before its time")
        harness.clock.advance(seconds: 1)
        async let first = picker.pass()
        async let second = picker.pass()
        let sent = try await first + second
        try #require(sent.count == 1, "one winner of two pickers: \(sent.map(\.id))")
        #expect(sent[0].request.winnerOf?.variant == "b" && sent[0].request.winnerOf?.messageId == id)
        #expect(try await picker.pass().isEmpty, "sent once")
        #expect(harness.metrics.render().contains("tern_ab_winners_total{result=\"sent\"} 1\n"))
        while try await harness.engine.drain() > 0 {}
        #expect(harness.sender.pushes.count == 100, "the test's \(tested) and the rest")
        for push in harness.sender.pushes.dropFirst(tested) {
            #expect(try Self.shown(push).title == "Last day" && push.token.hasPrefix("device-"))
        }
        let test = try await harness.server.admin("GET", "/messages/\(id)")
        #expect(test.json["winner_message_id"] as? String == sent[0].id && test.json["winner_due_at"] == nil)
    }

    /// The winner is the best rate, not the most opens; a test nobody opened sends its first
    /// version; a cancelled test, or one an operator picked, is left alone.
    @Test func theWinnerIsTheMostOpensPerDevice() async throws {
        func version(_ letter: String, _ opened: Int64, of targeted: Int64) -> VariantStats {
            VariantStats(variant: letter, percent: 50, targeted: targeted, delivered: targeted, opened: opened)
        }
        #expect(MessageVariants.winner(of: [version("a", 10, of: 100), version("b", 8, of: 50)]) == "b")
        #expect(MessageVariants.winner(of: [version("a", 5, of: 50), version("b", 10, of: 100)]) == "a", "level")
        #expect(MessageVariants.winner(of: [version("a", 0, of: 0), version("b", 0, of: 9)]) == "a")
        #expect(MessageVariants.winner(of: [version("a", 0, of: 0), version("b", 1, of: 9)]) == "b")
        #expect(
            MessageVariants.winner(of: [version("a", 1, of: 9), version("b", 2, of: 9), version("c", 3, of: 9)]) == "c")

        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.finish() } }
        for index in 0..<20 { try await harness.subscribe("device-\(index)") }
        let audience: [String: Any] = ["type": "resource", "resource_id": harness.resourceId]
        let ab: [String: Any] = [
            "variants": [[:], ["title": "B"]], "test_audience_percent": 50, "winner_after_minutes": 1,
        ]
        let unopened = try await harness.send(audience, extra: ab)
        let cancelled = try await harness.send(audience, extra: ab)
        let picked = try await harness.send(audience, extra: ab)
        let cancelling = try await harness.server.admin("POST", "/messages/\(cancelled)/cancel")
        #expect(cancelling.status == 200, "\(cancelling.errorText)")
        while try await harness.engine.drain() > 0 {}
        #expect(
            try await harness.server.admin("POST", "/messages/\(picked)/winner", json: ["variant": "b"]).status == 201)
        harness.clock.advance(seconds: 60)
        let picker = WinnerPicker(
            messages: MessageService(store: harness.server.store, clock: harness.clock.function),
            logger: Logger(minimum: .error, sink: { _ in }))
        let sent = try await picker.pass()
        #expect(
            sent.map { $0.request.winnerOf?.messageId } == [unopened] && sent.first?.request.winnerOf?.variant == "a")
    }

    @Test func aWinnerNeedsATestOfPartOfTheAudience() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.finish() } }
        try await harness.subscribe("device-0")
        let audience: [String: Any] = ["type": "resource", "resource_id": harness.resourceId]
        let whole = try await harness.send(audience, extra: ["variants": [[:], ["title": "B"]]])
        let noRest = try await harness.server.admin("POST", "/messages/\(whole)/winner", json: ["variant": "b"])
        #expect(noRest.status == 409 && noRest.errorText.contains("held no devices back"), "\(noRest.errorText)")
        let part = try await harness.send(
            audience, extra: ["variants": [[:], ["title": "B"]], "test_audience_percent": 10])
        let unknown = try await harness.server.admin("POST", "/messages/\(part)/winner", json: ["variant": "c"])
        #expect(unknown.status == 400 && unknown.errorText.contains("variant must be one of a, b, not c"))
        for (extra, reason) in [
            (["test_audience_percent": 20], "test_audience_percent goes with variants"),
            (
                ["variants": [[:], [:]], "test_audience_percent": 100], "test_audience_percent must be 1 to 99, not 100"
            ),
            (
                ["winner_of": ["message_id": part, "variant": "a", "test_audience_percent": 10, "key": 1]],
                "winner_of is set by the server"
            ),
            (
                ["variants": [[:], [:]], "winner_after_minutes": 60],
                "winner_after_minutes goes with test_audience_percent"
            ),
            (
                ["variants": [[:], [:]], "test_audience_percent": 10, "winner_after_minutes": 0],
                "winner_after_minutes must be 1 to 43200 (30 days), not 0"
            ),
            (
                ["variants": [[:], [:]], "test_audience_percent": 10, "winner_after_minutes": 43_201],
                "not 43201"
            ),
        ] as [([String: Any], String)] {
            var json: [String: Any] = ["title": "Hi", "audience": audience]
            json.merge(extra) { _, new in new }
            let reply = try await harness.create(json)
            #expect(reply.status == 400 && reply.errorText.contains(reason), "\(reply.status) \(reply.errorText)")
        }
    }

    @Test func aBadSplitOrABadVersionIsRefusedByName() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.finish() } }
        let audience: [String: Any] = ["type": "resource", "resource_id": harness.resourceId]
        let long = String(repeating: "x", count: 4000)
        let cases: [([String: Any], String)] = [
            (["variants": [["title": "A"]]], "variants must list 2 to 10 versions, not 1"),
            (["variants": Array(repeating: ["title": "A"], count: 11)], "not 11"),
            (["variants": [["percent": 50], ["title": "B"]]], "give percent for every variant or for none"),
            (["variants": [["percent": 0], ["percent": 100]]], "variants[0].percent must be 1 to 99, not 0"),
            (["variants": [["percent": 40], ["percent": 50]]], "must add up to 100, not 90"),
            (["variants": [["title": ""], ["title": "B"]]], "variants[0] (a): title is empty"),
            (["variants": [["title": "A"], ["media_url": "http://e.com/a.jpg"]]], "variants[1] (b): media_url"),
            (
                ["variants": [["title": "A"], ["body": long, "data": ["k": long]]]],
                "variants[1] (b): the payload would be"
            ),
            (["push_type": "background", "variants": [[:], [:]]], "variants are for alert pushes"),
        ]
        for (extra, expected) in cases {
            var json: [String: Any] = ["title": "Hi", "body": "Hello", "audience": audience]
            json.merge(extra) { _, new in new }
            if json["push_type"] != nil {
                json["title"] = nil
                json["body"] = nil
            }
            let reply = try await harness.create(json)
            #expect(reply.status == 400 && reply.errorText.contains(expected), "\(reply.status) \(reply.errorText)")
        }
    }
}
