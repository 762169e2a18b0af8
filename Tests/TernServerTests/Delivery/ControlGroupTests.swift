import Foundation
import TernProtocol
import TernTestSupport
import Testing

@testable import TernServer

/// A message's control group (`control_percent`): a share of its people, chosen by person, gets
/// nothing (none of their devices), the same people whichever chunk or run meets them; the stats
/// count each group's people and those who reached the goal inside the window; what cannot be
/// measured this way is refused by name.
@Suite struct ControlGroupTests {
    /// `count` people with `devices` push subscriptions each (tokens `p<i>-d<j>`, consecutive ids, so
    /// a chunk may end between a person's devices), written in the store. Answers each token's profile.
    @discardableResult
    static func people(_ harness: DeliveryHarness, count: Int, devices: Int) async throws -> [String: Int64] {
        let resourceId = harness.resourceId
        return try await harness.server.store.write { tx in
            let dbId = try #require(try tx.resource(id: resourceId)).dbId
            var owners: [String: Int64] = [:]
            for person in 0..<count {
                let profile = try tx.createProfile(dbId: dbId, publicId: "person-\(person)", now: 1)
                for device in 0..<devices {
                    let token = "p\(person)-d\(device)"
                    _ = try tx.insertSubscription(
                        SubscriptionValues(
                            profileId: profile.id, resourceId: resourceId, channel: .push, provider: .apns,
                            token: token, status: .subscribed, hashId: token, clientTime: 1), now: 1)
                    owners[token] = profile.id
                }
            }
            return owners
        }
    }

    static var controlled: [String: Any] { ["control_percent": 10, "conversion_goal": "purchase"] }

    static func everyone(_ harness: DeliveryHarness) -> [String: Any] {
        ["type": "resource", "resource_id": harness.resourceId]
    }

    static func control(_ stats: [String: Any]) throws -> [String: Any] {
        try #require(stats["control_group"] as? [String: Any], "\(stats)")
    }

    static func group(_ stats: [String: Any], _ name: String) throws -> (people: Int64, converted: Int64) {
        let group = try #require(try control(stats)[name] as? [String: Any], "\(stats)")
        return (group.int("people"), group.int("converted"))
    }

    /// The people the sender was given a push for, each with how many of their devices got one.
    static func reached(_ harness: DeliveryHarness, _ owners: [String: Int64]) -> [Int64: Int] {
        var reached: [Int64: Int] = [:]
        for push in harness.sender.pushes { reached[owners[push.token] ?? -1, default: 0] += 1 }
        return reached
    }

    @Test(arguments: StoreFactory.all)
    func aShareNearThePercentIsHeldOutWithAllTheirDevices(factory: StoreFactory) async throws {
        let harness = try await DeliveryHarness.make(store: factory)
        defer { Task { await harness.finish() } }
        let owners = try await Self.people(harness, count: 1000, devices: 2)
        let id = try await harness.send(Self.everyone(harness), extra: Self.controlled)
        while try await harness.engine.drain() > 0 {}

        let reached = Self.reached(harness, owners)
        #expect(reached.values.allSatisfy { $0 == 2 }, "a person's devices go together")
        let held = 1000 - reached.count
        // 10 % of 1,000 is 100, a standard deviation 9.5: four of them either side.
        #expect((62...138).contains(held), "\(held) of 1000 held out")
        let stats = try await harness.stats(id)
        #expect(try Self.group(stats, "control") == (Int64(held), 0), "\(stats)")
        #expect(try Self.group(stats, "sent") == (Int64(reached.count), 0), "\(stats)")
        #expect(stats.int("targeted") == Int64(2 * reached.count) && stats.int("sent") == Int64(2 * reached.count))
        #expect(stats.int("failed") == 0 && stats["done"] as? Bool == true, "\(stats)")
        let control = try Self.control(stats)
        #expect(control["percent"] as? Int == 10 && control["goal"] as? String == "purchase")
        #expect(control["window_hours"] as? Int == 72 && control["uplift"] is NSNull, "\(control)")

        // The held-out people are the ones the hash of the message's and the person's ids names.
        let message = try await harness.server.store.read { try MessageService.find($0, id) }
        let named = Set(owners.values).filter { ControlGroup.bucket(profileId: $0, messageId: message.id) < 10 }
        #expect(named == Set(owners.values).subtracting(reached.keys))
    }

    /// A fan-out of chunks of 7 subscriptions (a chunk ends between a person's two devices), one
    /// chunk rolled back as a crash would leave it, resumed by the engine: the same people held out.
    @Test(arguments: StoreFactory.all)
    func aResumedFanOutHoldsOutTheSamePeople(factory: StoreFactory) async throws {
        var options = DeliveryEngine.Options()
        options.fanOut = FanOut(chunkSize: 7)
        let harness = try await DeliveryHarness.make(options: options, store: factory)
        defer { Task { await harness.finish() } }
        let owners = try await Self.people(harness, count: 200, devices: 2)
        var extra = Self.controlled
        extra["control_percent"] = 30
        extra["send_at"] = ServerClock.milliseconds() + 60_000
        let id = try await harness.send(Self.everyone(harness), extra: extra)
        let message = try await harness.server.store.read { try MessageService.find($0, id) }
        struct Crash: Error {}
        // Three chunks written; the fourth is lost with its transaction.
        for _ in 0..<3 {
            _ = try await harness.server.store.write { tx in
                try FanOut(chunkSize: 7).step(tx, message: try MessageService.find(tx, id), now: 1)
            }
        }
        await #expect(throws: Crash.self) {
            try await harness.server.store.write { tx in
                try FanOut(chunkSize: 7).step(tx, message: try MessageService.find(tx, id), now: 1)
                throw Crash()
            }
        }
        harness.clock.advance(seconds: 61)
        while try await harness.engine.drain() > 0 {}

        let reached = Self.reached(harness, owners)
        #expect(reached.values.allSatisfy { $0 == 2 }, "a person's devices go together across chunks")
        let named = Set(owners.values).filter { ControlGroup.bucket(profileId: $0, messageId: message.id) < 30 }
        #expect(named == Set(owners.values).subtracting(reached.keys))
        let stats = try await harness.stats(id)
        #expect(try Self.group(stats, "control").people == Int64(named.count), "\(stats)")
        #expect(try Self.group(stats, "sent").people == Int64(200 - named.count), "\(stats)")
        #expect(stats.int("sent") == Int64(2 * (200 - named.count)), "\(stats)")
    }

    /// Goals of the control group's and the sent group's people: inside the window each person
    /// once, whichever device and whether it names the push or not; before the start, after the
    /// window or of another name, not at all. Kept when the message's rows per device go.
    @Test(arguments: StoreFactory.all)
    func conversionsAreCountedPerGroupInsideTheWindowOnly(factory: StoreFactory) async throws {
        let harness = try await DeliveryHarness.make(store: factory)
        defer { Task { await harness.finish() } }
        let owners = try await Self.people(harness, count: 40, devices: 2)
        var extra = Self.controlled
        extra["control_percent"] = 50
        extra["conversion_window_hours"] = 24
        let id = try await harness.send(Self.everyone(harness), extra: extra)
        while try await harness.engine.drain() > 0 {}
        let reached = Self.reached(harness, owners)
        let held = Set(owners.values).subtracting(reached.keys).sorted()
        let sent = reached.keys.sorted()
        try #require(held.count >= 4 && sent.count >= 4, "\(held.count) held out of 40")
        var stats = try await harness.stats(id)
        let control = try Self.control(stats)
        let windowEnd = try #require(control["window_ends_at"] as? Int64)
        let start = windowEnd - 24 * 3_600_000
        #expect(control["window_hours"] as? Int == 24)

        let projectId = harness.server.bootstrap.projectId
        let hour: Int64 = 3_600_000
        try await harness.server.store.write { tx in
            let pixel = try tx.createPixel(projectId: projectId, sid: "shop", name: "Shop", now: 1)
            func goal(_ profile: Int64, _ time: Int64, _ name: String = "purchase", push: String? = nil) throws {
                try tx.insertGoal(
                    GoalRecord(
                        pixelId: pixel.id, profileId: profile, resourceId: nil, clientId: "c", eventName: name,
                        sendMessageId: push, payload: nil, matching: nil, matchingType: nil, utm: nil, time: time,
                        receivedAt: time))
            }
            try goal(held[0], start + hour)  // counted
            try goal(held[0], start + 2 * hour)  // the same person: once
            try goal(held[1], start - 60_000)  // before the start
            try goal(held[2], windowEnd)  // the window has closed
            try goal(held[3], start + hour, "signup")  // another goal
            try goal(sent[0], start, push: "\(id).1")  // at the start, naming a push
            try goal(sent[1], start + 23 * hour)  // unattributed, inside
            try goal(sent[1], start + 3 * hour)
            try goal(sent[2], windowEnd + hour)  // after the window
            try goal(sent[3], start - 1)  // before the start
        }
        stats = try await harness.stats(id)
        #expect(try Self.group(stats, "control") == (Int64(held.count), 1), "\(stats)")
        #expect(try Self.group(stats, "sent") == (Int64(sent.count), 2), "\(stats)")
        let controlRate = 1.0 / Double(held.count)
        let uplift = (2.0 / Double(sent.count) - controlRate) / controlRate
        let answered = try #require(try Self.control(stats)["uplift"] as? Double)
        #expect(abs(answered - uplift) < 1e-9, "\(answered) \(uplift)")

        // Once the rows per device go, the comparison stays.
        var retention = DeliveryRetention(
            store: harness.server.store, days: 1, logger: Logger(minimum: .error, sink: { _ in }),
            clock: { ServerClock.milliseconds() + 2 * 86_400_000 })
        retention.stepRows = 10
        #expect(try await retention.pass().messages == 1)
        let kept = try await harness.stats(id)
        #expect(kept["deliveries_removed_at"] != nil, "\(kept)")
        #expect(try Self.control(kept) as NSDictionary == Self.control(stats) as NSDictionary, "\(kept)")

        // An erased person leaves their group, and their goals with them.
        let token = try #require(owners.first { $0.value == held[0] }?.key)
        let person = "person-" + token.dropFirst().prefix { $0 != "-" }
        let erased = try await harness.server.admin("DELETE", "/profiles/\(person)")
        #expect(erased.status == 200, "\(erased.errorText)")
        #expect(try Self.group(try await harness.stats(id), "control") == (Int64(held.count - 1), 0))
    }

    /// The held-out people do not count toward the frequency cap: a cap of one push a day lets the
    /// next message reach them, and only them.
    @Test(arguments: StoreFactory.all)
    func theHeldOutPeopleDoNotCountTowardTheFrequencyCap(factory: StoreFactory) async throws {
        let harness = try await DeliveryHarness.make(store: factory)
        defer { Task { await harness.finish() } }
        let cap = try await FrequencyCapTests.cap(harness, ["pushes": 1, "hours": 24])
        try #require(cap.status == 200, "\(cap.errorText)")
        let owners = try await Self.people(harness, count: 30, devices: 1)
        var extra = Self.controlled
        extra["control_percent"] = 50
        let first = try await harness.send(Self.everyone(harness), extra: extra)
        while try await harness.engine.drain() > 0 {}
        let firstReached = Set(Self.reached(harness, owners).keys)
        let held = Set(owners.values).subtracting(firstReached)
        try #require(!held.isEmpty && !firstReached.isEmpty)
        #expect(try await harness.stats(first).int("skipped_by_frequency_cap") == 0)

        let before = harness.sender.pushes.count
        let second = try await harness.send(Self.everyone(harness))
        while try await harness.engine.drain() > 0 {}
        let secondReached = Set(harness.sender.pushes[before...].compactMap { owners[$0.token] })
        #expect(secondReached == held, "only the people held out of the first had room under the cap")
        #expect(try await harness.stats(second)["control_group"] == nil)
    }

    @Test func whatCannotBeMeasuredIsRefusedByName() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.finish() } }
        try await harness.subscribe("device")
        let goal: [String: Any] = ["control_percent": 10, "conversion_goal": "purchase"]
        let cases: [([String: Any], String)] = [
            (["conversion_goal": "purchase"], "conversion_goal goes with control_percent"),
            (["conversion_window_hours": 24], "conversion_window_hours goes with control_percent"),
            (["control_percent": 10], "control_percent needs conversion_goal"),
            (["control_percent": 0, "conversion_goal": "purchase"], "control_percent must be 1 to 50"),
            (["control_percent": 51, "conversion_goal": "purchase"], "control_percent must be 1 to 50"),
            (["control_percent": 10, "conversion_goal": ""], "conversion_goal is empty"),
            (goal.merging(["conversion_window_hours": 0]) { $1 }, "conversion_window_hours must be 1 to 720"),
            (goal.merging(["conversion_window_hours": 721]) { $1 }, "conversion_window_hours must be 1 to 720"),
            (goal.merging(["test": true]) { $1 }, "control_percent does not go with test"),
            (
                goal.merging(["trigger": ["event_name": "signup", "delay_minutes": 5]]) { $1 },
                "control_percent does not go with trigger"
            ),
            (goal.merging(["repeat": ["every_days": 1]]) { $1 }, "control_percent does not go with repeat"),
            (
                goal.merging(["push_type": "background", "title": NSNull(), "body": NSNull()]) { $1 },
                "control_percent does not go with push_type background"
            ),
            (
                goal.merging([
                    "variants": [["title": "A"], ["title": "B"]], "test_audience_percent": 20,
                ]) { $1 },
                "control_percent does not go with test_audience_percent"
            ),
        ]
        for (extra, reason) in cases {
            var json: [String: Any] = ["title": "Hi", "body": "Hello", "audience": Self.everyone(harness)]
            json.merge(extra) { $1 }
            json = json.filter { !($0.value is NSNull) }
            let reply = try await harness.create(json)
            #expect(reply.status == 400 && reply.errorText.contains(reason), "\(extra): \(reply.errorText)")
        }
        let live = try await harness.create([
            "live_activity": ["event": "update", "content_state": ["score": 1]],
            "audience": ["type": "live_activity", "activity_id": "game-1"],
            "control_percent": 10, "conversion_goal": "purchase",
        ])
        #expect(
            live.status == 400 && live.errorText.contains("control_percent does not go with live_activity"),
            "\(live.errorText)")

        // An A/B test of the whole audience takes a control group: it is held out first.
        let split = try await harness.send(
            Self.everyone(harness), extra: goal.merging(["variants": [["title": "A"], ["title": "B"]]]) { $1 })
        while try await harness.engine.drain() > 0 {}
        let stats = try await harness.stats(split)
        #expect(try Self.group(stats, "control").people + Self.group(stats, "sent").people == 1, "\(stats)")
    }

    /// A scheduled message's edit may add, change or drop its control group, by the same rules.
    @Test func anEditBeforeItGoesMayChangeTheControlGroup() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.finish() } }
        try await harness.subscribe("device")
        let sendAt = ServerClock.milliseconds() + 3_600_000
        let id = try await harness.send(Self.everyone(harness), extra: ["send_at": sendAt])
        #expect(try await harness.stats(id)["control_group"] == nil)
        var body: [String: Any] = [
            "title": "Hi", "body": "Hello", "audience": Self.everyone(harness), "send_at": sendAt,
            "control_percent": 20, "conversion_goal": "purchase", "conversion_window_hours": 48,
        ]
        var edited = try await harness.server.admin("PUT", "/messages/\(id)", json: body)
        #expect(edited.status == 200, "\(edited.errorText)")
        let control = try Self.control(try await harness.stats(id))
        #expect(control["percent"] as? Int == 20 && control["window_hours"] as? Int == 48, "\(control)")
        #expect(control["window_ends_at"] as? Int64 == sendAt + 48 * 3_600_000, "\(control)")
        body["conversion_goal"] = nil
        edited = try await harness.server.admin("PUT", "/messages/\(id)", json: body)
        #expect(edited.status == 400 && edited.errorText.contains("control_percent needs conversion_goal"))
    }
}
