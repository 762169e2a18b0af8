import Foundation
import TernProtocol
import TernTestSupport
import Testing

@testable import TernServer

/// Live Activities: the SDK registers each activity's ActivityKit token and each device's
/// push-to-start token (`live-activity/token`), ends them (`live-activity/end`), and a message's
/// `live_activity` updates or ends an activity on every device that follows it, or starts one on
/// a person's devices, as `apns-push-type: liveactivity` pushes through the outbox.
@Suite struct LiveActivityTests {
    /// A hex token of `byte`, as ActivityKit's are (80 digits).
    static func hex(_ byte: String) -> String { String(repeating: byte, count: 40) }

    static func register(
        _ harness: DeliveryHarness, device: String, activityId: String?, token: String, time: Int64 = 2000,
        type: String = "DeliveryAttributes"
    ) async throws -> InProcessServer.Reply {
        var body: [String: Any] = [
            "time": time, "provider": "ios-apns", "subscription_id": device, "activity_type": type, "token": token,
        ]
        if let activityId { body["activity_id"] = activityId }
        return try await harness.server.sdk(.liveActivityToken, body)
    }

    static func payload(_ push: OutgoingPush) throws -> (aps: [String: Any], tern: [String: Any]) {
        let json = try #require(try JSONSerialization.jsonObject(with: push.payload) as? [String: Any])
        return (
            try #require(json["aps"] as? [String: Any]), try #require(json[TernPushPayload.key] as? [String: Any])
        )
    }

    @Test(arguments: StoreFactory.all)
    func anUpdateReachesEveryDeviceFollowingTheActivityOnce(factory: StoreFactory) async throws {
        let harness = try await DeliveryHarness.make(store: factory)
        defer { Task { await harness.finish() } }
        for device in ["phone-a", "phone-b", "phone-c", "phone-d"] { try await harness.subscribe(device) }
        // a and b follow the order; b's token rotates (the newer replaces it, an older one changes
        // nothing); c follows it and ends it; d follows another order.
        for (device, activity, token, time) in [
            ("phone-a", "order-1001", Self.hex("a1"), 2000), ("phone-b", "order-1001", Self.hex("b1"), 2000),
            ("phone-b", "order-1001", Self.hex("b2"), 3000), ("phone-b", "order-1001", Self.hex("b0"), 2500),
            ("phone-c", "order-1001", Self.hex("c1"), 2000), ("phone-d", "order-2002", Self.hex("d1"), 2000),
        ] as [(String, String, String, Int64)] {
            let reply = try await Self.register(harness, device: device, activityId: activity, token: token, time: time)
            #expect(reply.status == 200, "\(device): \(reply.status) \(reply.errorText)")
        }
        let ended = try await harness.server.sdk(
            .liveActivityEnd,
            [
                "time": 4000, "provider": "ios-apns", "subscription_id": "phone-c",
                "activity_type": "DeliveryAttributes",
                "activity_id": "order-1001",
            ])
        #expect(ended.status == 200, "\(ended.errorText)")

        let before = ServerClock.milliseconds() / 1000
        let reply = try await harness.create([
            "live_activity": [
                "event": "update", "content_state": ["status": "On its way", "eta": 12], "stale_date": 1_900_000_000,
                "relevance_score": 50,
            ],
            "title": "Order 1001", "body": "On its way", "sound": "default",
            "audience": ["type": "live_activity", "activity_id": "order-1001"],
        ])
        try #require(reply.status == 201, "\(reply.status) \(reply.errorText)")
        let id = try #require(reply.json["id"] as? String)
        while try await harness.engine.drain() > 0 {}

        #expect(harness.sentTokens == [Self.hex("a1"), Self.hex("b2")])
        for push in harness.sender.pushes {
            #expect(push.pushType == .liveActivity)
            #expect(push.provider == .apns)
            let (aps, tern) = try Self.payload(push)
            #expect(aps["event"] as? String == "update")
            #expect((aps["content-state"] as? [String: Any])?["status"] as? String == "On its way")
            #expect((aps["content-state"] as? [String: Any])?["eta"] as? Int == 12)
            #expect(aps["stale-date"] as? Int == 1_900_000_000)
            #expect(aps["relevance-score"] as? Double == 50)
            let stamp = try #require(aps["timestamp"] as? Int)
            #expect(Int64(stamp) >= before && Int64(stamp) <= before + 60, "seconds since 1970, the send's")
            let alert = try #require(aps["alert"] as? [String: Any])
            #expect(alert["title"] as? String == "Order 1001" && alert["sound"] as? String == "default")
            #expect(aps["attributes-type"] == nil && aps["mutable-content"] == nil)
            #expect(tern["message_id"] as? String == "\(id).\(push.deliveryId)")
        }
        let stats = try await harness.stats(id)
        #expect(stats.int("targeted") == 2 && stats.int("sent") == 2, "\(stats)")

        // An end goes to the same devices, with its dismissal date.
        let end = try await harness.create([
            "live_activity": ["event": "end", "dismissal_date": 0],
            "audience": ["type": "live_activity", "activity_id": "order-1001"],
        ])
        #expect(end.status == 201, "\(end.errorText)")
        while try await harness.engine.drain() > 0 {}
        let ends = harness.sender.pushes.dropFirst(2)
        #expect(ends.map(\.token).sorted() == [Self.hex("a1"), Self.hex("b2")])
        for push in ends {
            let (aps, _) = try Self.payload(push)
            #expect(aps["event"] as? String == "end" && aps["dismissal-date"] as? Int == 0)
        }

        // Nobody follows an unknown activity: the message is made, and reaches no one.
        let none = try await harness.create([
            "live_activity": ["event": "update", "content_state": [:] as [String: Any]],
            "audience": ["type": "live_activity", "activity_id": "order-9999"],
        ])
        #expect(none.status == 201, "\(none.errorText)")
        while try await harness.engine.drain() > 0 {}
        #expect(harness.sender.pushes.count == 4)
    }

    @Test(arguments: StoreFactory.all)
    func aStartGoesToThePersonsPushToStartTokens(factory: StoreFactory) async throws {
        let harness = try await DeliveryHarness.make(store: factory)
        defer { Task { await harness.finish() } }
        let ana = try await harness.subscribe("phone-ana")
        try await harness.subscribe("phone-bo")
        for (device, type, token) in [
            ("phone-ana", "DeliveryAttributes", Self.hex("5a")), ("phone-ana", "MatchAttributes", Self.hex("5b")),
            ("phone-bo", "DeliveryAttributes", Self.hex("5c")),
        ] {
            let reply = try await Self.register(harness, device: device, activityId: nil, token: token, type: type)
            #expect(reply.status == 200, "\(reply.errorText)")
        }
        // A push-to-start token is not an update token: an update of an activity with that name reaches no one.
        let reply = try await harness.create([
            "live_activity": [
                "event": "start", "activity_type": "DeliveryAttributes", "attributes": ["order": "1001"],
                "content_state": ["status": "Preparing"],
            ],
            "title": "Your order", "body": "We are preparing it", "priority": 5,
            "audience": ["type": "profile", "profile_id": ana],
        ])
        try #require(reply.status == 201, "\(reply.status) \(reply.errorText)")
        while try await harness.engine.drain() > 0 {}
        #expect(harness.sentTokens == [Self.hex("5a")])
        let push = try #require(harness.sender.pushes.first)
        #expect(push.priority == 5)
        let (aps, _) = try Self.payload(push)
        #expect(aps["event"] as? String == "start")
        #expect(aps["attributes-type"] as? String == "DeliveryAttributes")
        #expect((aps["attributes"] as? [String: Any])?["order"] as? String == "1001")
        #expect(aps["input-push-token"] as? Int == 1)

        // The resource's devices: each device's token for the type, once.
        let all = try await harness.create([
            "live_activity": [
                "event": "start", "activity_type": "DeliveryAttributes", "attributes": [:] as [String: Any],
                "content_state": [:] as [String: Any],
            ],
            "body": "Follow your order", "audience": ["type": "resource", "resource_id": harness.resourceId],
        ])
        try #require(all.status == 201, "\(all.errorText)")
        while try await harness.engine.drain() > 0 {}
        #expect(harness.sender.pushes.dropFirst().map(\.token).sorted() == [Self.hex("5a"), Self.hex("5c")])

        // Live Activities stay out of the ordinary audience: a resource's alert reaches its two phones only.
        _ = try await harness.send(["type": "resource", "resource_id": harness.resourceId])
        while try await harness.engine.drain() > 0 {}
        #expect(harness.sender.pushes.dropFirst(3).map(\.token).sorted() == ["phone-ana", "phone-bo"])
    }

    @Test func theSDKsBadRequestsAreRefusedWithAReason() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.finish() } }
        try await harness.subscribe("phone-a")
        for (device, activity, token, type, reason) in [
            ("phone-a", "order-1", "", "DeliveryAttributes", "token is empty"),
            (
                "phone-a", "order-1", "xyz", "DeliveryAttributes",
                "token must be the ActivityKit push token in hexadecimal"
            ),
            ("phone-a", "order-1", "abc", "DeliveryAttributes", "in hexadecimal"),
            ("phone-a", "order-1", Self.hex("ab"), "", "activity_type is empty"),
            ("phone-a", "order-1", Self.hex("ab"), "Delivery Attributes", "is not a type's name"),
            ("phone-a", String(repeating: "x", count: 129), Self.hex("ab"), "A", "activity_id is longer than 128"),
            ("phone-a", "", Self.hex("ab"), "A", "activity_id is empty"),
            ("phone-a", "order\n1", Self.hex("ab"), "A", "activity_id has a control character"),
            ("phone-unknown", "order-1", Self.hex("ab"), "A", "call push/subscribe before registering"),
        ] as [(String, String?, String, String, String)] {
            let reply = try await Self.register(harness, device: device, activityId: activity, token: token, type: type)
            #expect(reply.status == 400 || reply.status == 404, "\(reason): \(reply.status)")
            #expect(reply.errorText.contains(reason), "\(reason): \(reply.errorText)")
        }
        let end = try await harness.server.sdk(
            .liveActivityEnd,
            ["time": 1, "provider": "ios-apns", "subscription_id": "phone-a", "activity_type": "A", "activity_id": "x"])
        #expect(
            end.status == 404 && end.errorText.contains("registered no token for activity \"x\""), "\(end.errorText)")
    }

    @Test func aLiveActivityMessageIsCheckedFieldByField() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.finish() } }
        let activity: [String: Any] = ["type": "live_activity", "activity_id": "order-1"]
        let update: [String: Any] = ["event": "update", "content_state": ["a": 1]]
        let start: [String: Any] = [
            "event": "start", "activity_type": "DeliveryAttributes", "attributes": [:] as [String: Any],
            "content_state": [:] as [String: Any],
        ]
        for (json, reason) in [
            (["live_activity": ["event": "pause"], "audience": activity], "event must be update, end or start"),
            (["live_activity": ["event": "update"], "audience": activity], "content_state is required for update"),
            (
                ["live_activity": update, "audience": ["type": "resource", "resource_id": harness.resourceId]],
                "goes to audience type live_activity"
            ),
            (["live_activity": update, "audience": ["type": "live_activity"]], "audience.activity_id is empty"),
            (["live_activity": update, "audience": activity, "badge": 1], "badge does not go with live_activity"),
            (["live_activity": update, "audience": activity, "inbox": true], "inbox does not go with live_activity"),
            (
                ["live_activity": update, "audience": activity, "variants": [[:], ["title": "b"]]],
                "variants does not go with live_activity"
            ),
            (["live_activity": update, "audience": activity, "priority": 1], "priority is 10"),
            (["live_activity": update, "audience": activity, "push_type": "alert"], "push_type alert does not go"),
            (["live_activity": update, "audience": activity, "title": "Hi {{name}}"], "placeholders do not go"),
            (
                [
                    "live_activity": ["event": "update", "content_state": ["a": 1], "dismissal_date": 5],
                    "audience": activity,
                ],
                "dismissal_date goes with end only"
            ),
            (
                [
                    "live_activity": ["event": "update", "content_state": ["a": 1], "relevance_score": 101],
                    "audience": activity,
                ],
                "relevance_score must be 0 to 100"
            ),
            (
                [
                    "live_activity": ["event": "update", "content_state": ["a": String(repeating: "x", count: 5000)]],
                    "audience": activity,
                ],
                "over APNs' limit"
            ),
            (
                ["live_activity": start, "audience": activity, "title": "Go"],
                "goes to audience type profile, profiles or resource"
            ),
            (
                ["live_activity": start, "audience": ["type": "resource", "resource_id": harness.resourceId]],
                "a Live Activity start needs a title or a body"
            ),
            (
                [
                    "live_activity": ["event": "start", "content_state": [:] as [String: Any]], "title": "Go",
                    "audience": ["type": "resource", "resource_id": harness.resourceId],
                ],
                "activity_type is required for start"
            ),
            (
                ["live_activity": ["event": "end", "activity_type": "A"], "audience": activity],
                "activity_type goes with start only"
            ),
            (["title": "Hi", "audience": activity], "audience type live_activity goes with live_activity"),
            (
                [
                    "title": "Hi", "push_type": "liveactivity",
                    "audience": ["type": "resource", "resource_id": harness.resourceId],
                ], "push_type liveactivity goes with live_activity"
            ),
        ] as [([String: Any], String)] {
            let reply = try await harness.create(json)
            #expect(
                reply.status == 400 && reply.errorText.contains(reason), "\(reason): \(reply.status) \(reply.errorText)"
            )
        }
    }

    /// Through the APNs-like peer (HTTP/2, TLS): the app's topic with `.push-type.liveactivity`
    /// after it (the credential's, or the message's own), `apns-push-type: liveactivity`.
    @Test func anActivityKitPushGoesToTheLiveActivityTopic() async throws {
        let fixture = try await APNsFixture.start()
        defer { fixture.peer.stop() }
        let client = try fixture.client()
        var push = APNsFixture.push(1, type: .liveActivity)
        push.payload = Data(#"{"aps":{"timestamp":1,"event":"update","content-state":{}}}"#.utf8)
        #expect(await client.send(push).isSent)
        push.deliveryId = 2
        push.topic = APNsFixture.topic + LiveActivityMessage.topicSuffix
        #expect(await client.send(push).isSent)
        // The peer holds APNs' rules: an alert to the Live Activity topic, or a Live Activity push
        // without its timestamp and event, is refused.
        var alert = APNsFixture.push(3)
        alert.topic = APNsFixture.topic + LiveActivityMessage.topicSuffix
        #expect(await client.send(alert).isSent == false)
        var bare = push
        bare.deliveryId = 4
        bare.payload = Data(#"{"aps":{"content-state":{}}}"#.utf8)
        #expect(await client.send(bare).isSent == false)
        let all = try await fixture.peer.log()
        #expect(all.compactMap { $0["reason"] as? String } == ["TopicDisallowed", "BadPayload"])
        let log = all.filter { $0["status"] as? Int == 200 }
        try #require(log.count == 2)
        for entry in log {
            let headers = try #require(entry["headers"] as? [String: String])
            #expect(headers["apns-topic"] == APNsFixture.topic + ".push-type.liveactivity")
            #expect(headers["apns-push-type"] == "liveactivity")
            #expect(headers["apns-priority"] == "10")
        }
    }
}
