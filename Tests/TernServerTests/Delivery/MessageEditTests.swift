import Foundation
import TernProtocol
import TernTestSupport
import Testing

@testable import TernServer

/// `PUT /admin/messages/{id}`: a scheduled message before its fan-out begins (an A/B test's
/// versions too), or a recurring message's copies to come, take a new request checked as a new message's; anything of which
/// something has gone answers 409 and stays as it was, also when the edit races the fan-out.
@Suite struct MessageEditTests {
    static func audience(_ harness: DeliveryHarness) -> [String: Any] {
        ["type": "resource", "resource_id": harness.resourceId]
    }

    static func edit(_ harness: DeliveryHarness, _ id: String, _ json: [String: Any], key: String? = nil) async throws
        -> InProcessServer.Reply
    {
        var headers = ["Authorization": "Bearer \(key ?? harness.server.bootstrap.adminKey)"]
        headers["Content-Type"] = "application/json"
        return await harness.server.send(
            "PUT", "/api/v1/admin/messages/\(id)", body: try JSONSerialization.data(withJSONObject: json),
            headers: headers)
    }

    /// The alert titles the sender was given for `id`'s deliveries (or a copy's, by its id).
    static func titles(_ harness: DeliveryHarness, _ id: String) throws -> [String] {
        try harness.sender.pushes.filter { $0.messageId == id }.map { push in
            let json = try #require(try JSONSerialization.jsonObject(with: push.payload) as? [String: Any])
            let alert = (json["aps"] as? [String: Any])?["alert"] as? [String: Any]
            return try #require(alert?["title"] as? String, "\(json)")
        }
    }

    @Test(arguments: StoreFactory.all)
    func anEditedScheduledMessageSendsItsNewTitleAtItsNewTime(factory: StoreFactory) async throws {
        let harness = try await DeliveryHarness.make(store: factory)
        defer { Task { await harness.finish() } }
        for token in ["phone-a", "phone-b"] { try await harness.subscribe(token) }
        let first = ServerClock.milliseconds() + 60_000
        let id = try await harness.send(Self.audience(harness), extra: ["title": "Sale at nine", "send_at": first])
        let later = first + 60_000
        let edited = try await Self.edit(
            harness, id, ["title": "Sale at ten", "send_at": later, "audience": Self.audience(harness)])
        try #require(edited.status == 200, "\(edited.errorText)")
        #expect(edited.json["id"] as? String == id && edited.json["send_at"] as? Int64 == later)
        #expect((edited.json["request"] as? [String: Any])?["title"] as? String == "Sale at ten")
        #expect(edited.json["edited_at"] as? Int64 != nil)

        harness.clock.advance(seconds: 61)
        try await harness.engine.drain()
        #expect(harness.sender.pushes.isEmpty, "nothing at the old time")
        harness.clock.advance(seconds: 60)
        try await harness.engine.drain()
        #expect(try Self.titles(harness, id) == ["Sale at ten", "Sale at ten"])
        let read = try await harness.server.admin("GET", "/messages/\(id)")
        #expect(read.json["edited_at"] as? Int64 == edited.json["edited_at"] as? Int64)
    }

    @Test(arguments: StoreFactory.all)
    func anEditedRecurringMessageChangesTheCopiesToComeOnly(factory: StoreFactory) async throws {
        let harness = try await DeliveryHarness.make(store: factory)
        defer { Task { await harness.finish() } }
        try await harness.subscribe("phone-a")
        let made = try await harness.create([
            "title": "Monday picks", "repeat": ["every_days": 1], "audience": Self.audience(harness),
        ])
        try #require(made.status == 201, "\(made.errorText)")
        let id = try #require(made.json["id"] as? String)
        let runner = RecurrenceTests.runner(harness)
        let copies = try await runner.pass()
        try #require(copies.count == 1)
        let next = try #require(try await harness.server.admin("GET", "/messages/\(id)").json["next_copy_at"] as? Int64)

        // The same rhythm: the next copy stays where it was, with the new content.
        let same = try await Self.edit(
            harness, id, ["title": "Tuesday picks", "repeat": ["every_days": 1], "audience": Self.audience(harness)])
        try #require(same.status == 200, "\(same.errorText)")
        #expect(same.json["next_copy_at"] as? Int64 == next)
        harness.clock.advance(seconds: RecurrenceTests.day + 1)
        let second = try await runner.pass()
        try #require(second.count == 1)
        while try await harness.engine.drain() > 0 {}
        #expect(try Self.titles(harness, copies[0].id) == ["Monday picks"], "the copy already made keeps its own")
        #expect(try Self.titles(harness, second[0].id) == ["Tuesday picks"])
        let kept = try await harness.server.admin("GET", "/messages/\(copies[0].id)")
        #expect((kept.json["request"] as? [String: Any])?["title"] as? String == "Monday picks")

        // A new rhythm from a new first time moves the next copy there.
        let start = ServerClock.milliseconds() + 3 * 86_400_000
        let moved = try await Self.edit(
            harness, id,
            ["title": "Picks", "repeat": ["weekdays": ["mon"]], "send_at": start, "audience": Self.audience(harness)])
        try #require(moved.status == 200, "\(moved.errorText)")
        let expected = MessageRecurrence(weekdays: [.mon]).start(start, local: false)
        #expect(moved.json["next_copy_at"] as? Int64 == expected)
        // A local time added to the same days and first time: each device's own Monday, whose copy is
        // made at 10:00 UTC the day before.
        let local = try await Self.edit(
            harness, id,
            [
                "title": "Picks", "repeat": ["weekdays": ["mon"]], "send_at": start, "local_time_of_day": "09:00",
                "audience": Self.audience(harness),
            ])
        try #require(local.status == 200, "\(local.errorText)")
        let localStart = try #require(MessageRecurrence(weekdays: [.mon]).start(start, local: true))
        #expect(local.json["next_copy_at"] as? Int64 == localStart && localStart % 86_400_000 == 10 * 3_600_000)

        // A copy is not the recurring message.
        let copy = try await Self.edit(harness, copies[0].id, ["title": "x", "audience": Self.audience(harness)])
        #expect(copy.status == 409 && copy.errorText.contains("edit \(id) for the copies to come"), "\(copy.errorText)")
        let dropped = try await Self.edit(harness, id, ["title": "x", "audience": Self.audience(harness)])
        #expect(dropped.status == 400 && dropped.errorText.contains("keeps repeat"), "\(dropped.errorText)")
    }

    /// A scheduled A/B test has sent no version: its versions and split are the edit's.
    @Test(arguments: StoreFactory.all)
    func aScheduledABTestSendsTheEditsVersionsAndSplit(factory: StoreFactory) async throws {
        let harness = try await DeliveryHarness.make(store: factory)
        defer { Task { await harness.finish() } }
        for index in 0..<20 { try await harness.subscribe("device-\(index)") }
        let sendAt = ServerClock.milliseconds() + 60_000
        let id = try await harness.send(
            Self.audience(harness),
            extra: [
                "title": "Sale", "send_at": sendAt, "variants": [["percent": 50], ["percent": 50, "title": "Old B"]],
            ])
        let edited = try await Self.edit(
            harness, id,
            [
                "title": "Sale", "send_at": sendAt, "audience": Self.audience(harness),
                "variants": [["percent": 20], ["percent": 80, "title": "New B"]],
            ])
        try #require(edited.status == 200, "\(edited.errorText)")
        let winner = try await Self.edit(
            harness, id,
            [
                "title": "Sale", "send_at": sendAt, "audience": Self.audience(harness),
                "winner_of": ["message_id": id, "variant": "a", "test_audience_percent": 10, "key": 1],
            ])
        #expect(winner.status == 400 && winner.errorText.contains("winner_of does not go with an edit"))

        harness.clock.advance(seconds: 61)
        while try await harness.engine.drain() > 0 {}
        let message = try #require(try await harness.server.store.read { try $0.message(publicId: id) })
        let rows = try await harness.deliveries(id)
        try #require(rows.count == 20 && harness.sender.pushes.count == 20)
        let subscriptionOf = Dictionary(uniqueKeysWithValues: rows.map { ($0.int("id"), $0.int("subscription_id")) })
        let split = MessageVariants.Split(percents: [20, 80])
        var titles: [String: Int] = [:]
        for push in harness.sender.pushes {
            let version = split.index(
                subscriptionId: try #require(subscriptionOf[push.deliveryId]), messageId: message.id)
            let shown = try MessageVariantTests.shown(push)
            #expect(shown.pushId == "\(id).\(["a", "b"][version]).\(push.deliveryId)")
            #expect(shown.title == ["Sale", "New B"][version], "\(shown)")
            titles[shown.title ?? "", default: 0] += 1
        }
        #expect(titles["Old B"] == nil && titles.count == 2, "\(titles)")
        let stats = try await harness.stats(id)
        let variants = try #require(stats["variants"] as? [[String: Any]], "\(stats)")
        #expect(variants.map { $0.int("percent") } == [20, 80])

        let sent = try await Self.edit(
            harness, id,
            [
                "title": "Sale", "audience": Self.audience(harness),
                "variants": [["percent": 50], ["percent": 50, "title": "Late B"]],
            ])
        #expect(sent.status == 409 && sent.errorText.contains("\(id) has finished sending"), "\(sent.errorText)")
    }

    @Test(arguments: StoreFactory.all)
    func aMessageThatStartedSendingIsRefusedAndStaysAsItWas(factory: StoreFactory) async throws {
        let harness = try await DeliveryHarness.make(store: factory)
        defer { Task { await harness.finish() } }
        try await harness.subscribe("phone-a")
        let sendAt = ServerClock.milliseconds() + 60_000
        let id = try await harness.send(Self.audience(harness), extra: ["title": "Old", "send_at": sendAt])
        harness.clock.advance(seconds: 61)
        try await harness.engine.drain()
        let refused = try await Self.edit(harness, id, ["title": "New", "audience": Self.audience(harness)])
        #expect(refused.status == 409, "\(refused.errorText)")
        #expect(refused.errorText.contains("\(id) has finished sending: send a new message"), "\(refused.errorText)")
        let read = try await harness.server.admin("GET", "/messages/\(id)")
        #expect((read.json["request"] as? [String: Any])?["title"] as? String == "Old")
        #expect(read.json["edited_at"] == nil)
        #expect(try Self.titles(harness, id) == ["Old"])

        let now = try await harness.send(Self.audience(harness), extra: ["title": "Now"])
        let sending = try await Self.edit(harness, now, ["title": "New", "audience": Self.audience(harness)])
        #expect(sending.status == 409 && sending.errorText.contains("\(now) has started sending: cancel it"))

        let scheduled = try await harness.send(Self.audience(harness), extra: ["send_at": sendAt + 3_600_000])
        _ = try await harness.server.admin("POST", "/messages/\(scheduled)/cancel")
        let cancelled = try await Self.edit(harness, scheduled, ["title": "New", "audience": Self.audience(harness)])
        #expect(cancelled.status == 409 && cancelled.errorText.contains("was cancelled"), "\(cancelled.errorText)")
    }

    /// The edit and the fan-out's claim of the due message run side by side: each message is sent
    /// wholly as it was (and the edit refused) or wholly as edited.
    @Test(arguments: StoreFactory.all)
    func anEditRacingTheFanOutIsWhollyBeforeOrAfterIt(factory: StoreFactory) async throws {
        let harness = try await DeliveryHarness.make(store: factory)
        defer { Task { await harness.finish() } }
        for token in ["phone-a", "phone-b", "phone-c"] { try await harness.subscribe(token) }
        var outcomes: [Int: Int] = [:]
        for round in 0..<16 {
            let sendAt = ServerClock.milliseconds() + 600_000 + Int64(round) * 1000
            let id = try await harness.send(Self.audience(harness), extra: ["title": "Old", "send_at": sendAt])
            harness.clock.advance(seconds: 602)
            // Either may start first, by a little.
            let (engineWait, editWait) = round % 2 == 0 ? (Int.random(in: 0...3000), 0) : (0, Int.random(in: 0...3000))
            async let drained: Int = {
                try await Task.sleep(for: .microseconds(engineWait))
                return try await harness.engine.drain()
            }()
            async let edited: InProcessServer.Reply = {
                try await Task.sleep(for: .microseconds(editWait))
                return try await Self.edit(
                    harness, id, ["title": "New", "send_at": sendAt, "audience": Self.audience(harness)])
            }()
            let (reply, _) = try await (edited, drained)
            while try await harness.engine.drain() > 0 {}
            outcomes[reply.status, default: 0] += 1
            let titles = try Self.titles(harness, id)
            if reply.status == 200 {
                #expect(titles == ["New", "New", "New"], "round \(round)")
            } else {
                #expect(reply.status == 409, "round \(round): \(reply.errorText)")
                #expect(titles == ["Old", "Old", "Old"], "round \(round)")
            }
        }
        #expect(outcomes.values.reduce(0, +) == 16, "\(outcomes)")
    }

    @Test(arguments: StoreFactory.all)
    func aBadBodyIsRefusedAsPostRefusesItAndAnotherProjectsKeyAsCancelIs(factory: StoreFactory) async throws {
        let harness = try await DeliveryHarness.make(store: factory)
        defer { Task { await harness.finish() } }
        try await harness.subscribe("phone-a")
        let sendAt = ServerClock.milliseconds() + 3_600_000
        let id = try await harness.send(Self.audience(harness), extra: ["title": "Old", "send_at": sendAt])
        let bad: [[String: Any]] = [
            ["title": "x", "audience": Self.audience(harness), "send_at": sendAt + 31 * 86_400_000],
            ["title": "x", "audience": Self.audience(harness), "repeat": ["every_days": 0]],
            ["audience": Self.audience(harness), "priority": 7],
        ]
        for body in bad {
            let posted = try await harness.create(body)
            let edited = try await Self.edit(harness, id, body)
            #expect(posted.status == 400 && edited.status == 400, "\(posted.errorText) / \(edited.errorText)")
            #expect(edited.errorText == posted.errorText)
        }

        let other = try await harness.server.admin("POST", "/projects", json: ["name": "other"]).json.int("id")
        let moved = try await Self.edit(
            harness, id,
            ["title": "x", "project_id": other, "audience": ["type": "token", "token": "t", "provider": "ios-apns"]])
        #expect(
            moved.status == 400 && moved.errorText.contains("cannot move it to project \(other)"), "\(moved.errorText)")
        let key = try await harness.server.admin(
            "POST", "/keys", json: ["project_id": other, "role": "send", "name": "other-sender"])
        let secret = try #require(key.json["secret"] as? String, "\(key.errorText)")
        let cancel = await harness.server.send(
            "POST", "/api/v1/admin/messages/\(id)/cancel", headers: ["Authorization": "Bearer \(secret)"])
        let edit = try await Self.edit(harness, id, ["title": "x", "audience": Self.audience(harness)], key: secret)
        #expect(cancel.status == 404 && edit.status == 404 && edit.errorText == cancel.errorText, "\(edit.errorText)")
        let read = try await harness.server.admin("GET", "/messages/\(id)")
        #expect((read.json["request"] as? [String: Any])?["title"] as? String == "Old" && read.json["edited_at"] == nil)
    }

    @Test func anIdempotencyKeyAnswersTheFirstEditAndIsRefusedForAnotherMessage() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.finish() } }
        try await harness.subscribe("phone-a")
        let sendAt = ServerClock.milliseconds() + 3_600_000
        let one = try await harness.send(Self.audience(harness), extra: ["send_at": sendAt])
        let two = try await harness.send(Self.audience(harness), extra: ["send_at": sendAt])
        let body = try JSONSerialization.data(withJSONObject: ["title": "New", "audience": Self.audience(harness)])
        func put(_ id: String) async -> InProcessServer.Reply {
            await harness.server.send(
                "PUT", "/api/v1/admin/messages/\(id)", body: body,
                headers: ["Authorization": "Bearer \(harness.server.bootstrap.adminKey)", "Idempotency-Key": "edit-1"])
        }
        let first = await put(one)
        let again = await put(one)
        #expect(first.status == 200 && again.status == 200 && again.body == first.body, "\(first.errorText)")
        let elsewhere = await put(two)
        #expect(elsewhere.status == 422, "\(elsewhere.status) \(elsewhere.errorText)")
    }
}
