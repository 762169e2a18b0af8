import Foundation
import TernProtocol
import Testing

@testable import TernServer

/// Issue 14 on the server: each subscription's APNs environment decides its gateway, a message's
/// `ios_category` becomes `aps.category`, and a test send reaches the test devices only.
@Suite struct EnvironmentAndTestSendTests {
    /// Subscribes `token`, saying `environment` when given.
    static func subscribe(
        _ harness: DeliveryHarness, _ token: String, environment: String? = nil, endpoint: Endpoint = .pushSubscribe
    ) async throws -> InProcessServer.Reply {
        var extra: [String: Any] = [:]
        if let environment { extra["apns_environment"] = environment }
        return try await harness.server.sdk(endpoint, InProcessServer.subscription(token: token, extra: extra))
    }

    static func environments(_ harness: DeliveryHarness) -> [String: APNsEnvironment] {
        Dictionary(harness.sender.pushes.map { ($0.token, $0.environment) }, uniquingKeysWith: { $1 })
    }

    @Test func eachDeviceGoesThroughTheEnvironmentItsSDKSaid() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.finish() } }
        for (token, environment) in [("dev", "sandbox"), ("store", "production"), ("old-sdk", nil)] {
            let reply = try await Self.subscribe(harness, token, environment: environment)
            try #require(reply.status == 200, "\(reply.errorText)")
        }
        _ = try await harness.send(["type": "resource", "resource_id": harness.resourceId])
        try await harness.engine.drain()
        #expect(Self.environments(harness) == ["dev": .sandbox, "store": .production, "old-sdk": .production])

        // The message's environment is only for subscriptions whose SDK never said.
        let before = harness.sender.pushes.count
        _ = try await harness.send(
            ["type": "resource", "resource_id": harness.resourceId], extra: ["environment": "sandbox"])
        try await harness.engine.drain()
        let second = Dictionary(
            harness.sender.pushes.dropFirst(before).map { ($0.token, $0.environment) }, uniquingKeysWith: { $1 })
        #expect(second == ["dev": .sandbox, "store": .production, "old-sdk": .sandbox])
    }

    @Test func theEnvironmentIsKeptUntilSaidAgainAndFollowsATokenUpdate() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.finish() } }
        try #require(try await Self.subscribe(harness, "first", environment: "sandbox").status == 200)
        // A later subscribe that does not say keeps it.
        let again = try await harness.server.sdk(
            .pushSubscribe, InProcessServer.subscription(token: "first", time: 2000))
        try #require(again.status == 200)
        let update = try await harness.server.sdk(
            .pushUpdate,
            [
                "old_provider": "ios-apns", "old_subscription_id": "first", "provider": "ios-apns",
                "subscription_id": "second", "apns_environment": "production",
            ])
        try #require(update.status == 200, "\(update.errorText)")
        let found = try await harness.server.admin(
            "GET", "/subscriptions",
            query: ["resource_id": "\(harness.resourceId)", "provider": "ios-apns", "subscription_id": "second"])
        #expect(found.array.first?["apns_environment"] as? String == "production", "\(found.array)")
        #expect(found.array.first?["is_test"] as? Bool == false)
    }

    @Test(arguments: [Endpoint.pushSubscribe, .pushSuspend, .pushUpdate])
    func anUnknownEnvironmentIsRefusedNamingTheField(endpoint: Endpoint) async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.finish() } }
        try #require(try await Self.subscribe(harness, "known").status == 200)
        let body: [String: Any] =
            endpoint == .pushUpdate
            ? [
                "old_provider": "ios-apns", "old_subscription_id": "known", "provider": "ios-apns",
                "subscription_id": "next", "apns_environment": "staging",
            ]
            : InProcessServer.subscription(token: "known", extra: ["apns_environment": "staging"])
        let reply = try await harness.server.sdk(endpoint, body)
        #expect(reply.status == 400)
        #expect(reply.errorText.contains("apns_environment"), "\(reply.errorText)")
        #expect(reply.errorText.contains("sandbox, production"), "\(reply.errorText)")
        let wrongType = try await harness.server.sdk(
            endpoint == .pushUpdate ? .pushSubscribe : endpoint,
            InProcessServer.subscription(token: "known", extra: ["apns_environment": 1]))
        #expect(wrongType.status == 400 && wrongType.errorText.contains("apns_environment"), "\(wrongType.errorText)")
    }

    @Test func anIOSCategoryBecomesApsCategory() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.finish() } }
        try #require(try await Self.subscribe(harness, "device").status == 200)
        _ = try await harness.send(
            ["type": "resource", "resource_id": harness.resourceId], extra: ["ios_category": "ORDER_V1"])
        try await harness.engine.drain()
        let push = try #require(harness.sender.pushes.first)
        let payload = try #require(try JSONSerialization.jsonObject(with: push.payload) as? [String: Any])
        let aps = try #require(payload["aps"] as? [String: Any])
        #expect(aps["category"] as? String == "ORDER_V1")
    }

    /// Each case: the fields added to an alert (JSON), and what the refusal must say.
    @Test(arguments: [
        (#"{"ios_category": ""}"#, "ios_category is empty"),
        (#"{"ios_category": "tern.m_1"}"#, "Tern's own"),
        ("{\"ios_category\": \"\(String(repeating: "x", count: 257))\"}", "ios_category is longer than 256"),
        (#"{"ios_category": 7}"#, "ios_category"),
        (#"{"ios_category": "ORDER_V1", "buttons": [{"id": "a", "title": "A", "action": "open"}]}"#, "buttons"),
    ])
    func aBadIOSCategoryIsRefused(extra: String, reason: String) async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.finish() } }
        var json: [String: Any] = ["title": "Hi", "audience": ["type": "resource", "resource_id": harness.resourceId]]
        let fields = try #require(try JSONSerialization.jsonObject(with: Data(extra.utf8)) as? [String: Any])
        json.merge(fields) { _, new in new }
        let reply = try await harness.create(json)
        #expect(reply.status == 400)
        #expect(reply.errorText.contains(reason), "\(reply.errorText)")
        let background = try await harness.create([
            "push_type": "background", "ios_category": "ORDER_V1",
            "audience": ["type": "resource", "resource_id": harness.resourceId],
        ])
        #expect(background.status == 400 && background.errorText.contains("ios_category"), "\(background.errorText)")
    }

    @Test func aTestSendReachesOnlyTestDevicesThenTheAudienceGetsIt() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.finish() } }
        try await harness.subscribe("plain")
        try await harness.subscribe("marked")
        let tester = try await harness.subscribe("tester-phone")
        let mark = try await harness.server.admin(
            "PUT", "/resources/\(harness.resourceId)/test-devices",
            json: ["provider": "ios-apns", "subscription_id": "marked", "is_test": true])
        try #require(mark.status == 200, "\(mark.errorText)")
        #expect(mark.array.map { $0["is_test"] as? Bool } == [true])
        let profile = try await harness.server.admin("PUT", "/profiles/\(tester)/test", json: ["is_test": true])
        try #require(profile.status == 200, "\(profile.errorText)")

        let listed = try await harness.server.admin("GET", "/test-devices")
        #expect(listed.array.compactMap { $0["subscription_id"] as? String }.sorted() == ["marked", "tester-phone"])

        let audience: [String: Any] = ["type": "resource", "resource_id": harness.resourceId]
        // A test send goes at once, whatever throttle the campaign it tries out has.
        let test = try await harness.send(audience, extra: ["test": true, "throttle_per_minute": 1])
        try await harness.engine.drain()
        #expect(harness.sentTokens == ["marked", "tester-phone"])
        #expect(try await harness.stats(test).int("targeted") == 2)
        let size = try await harness.server.admin(
            "POST", "/audience/size", json: ["title": "Hi", "test": true, "audience": audience])
        #expect(size.json.int("devices") == 2, "\(size.json)")

        _ = try await harness.send(audience)
        try await harness.engine.drain()
        #expect(harness.sentTokens == ["marked", "marked", "plain", "tester-phone", "tester-phone"])

        // Unmarked, the device is no longer a test device.
        let unmark = try await harness.server.admin(
            "PUT", "/resources/\(harness.resourceId)/test-devices",
            json: ["subscription_id": "marked", "is_test": false])
        try #require(unmark.status == 200)
        let after = try await harness.server.admin("GET", "/test-devices")
        #expect(after.array.compactMap { $0["subscription_id"] as? String } == ["tester-phone"])
    }

    @Test func aTestSendWithNoTestDeviceIsRefusedAndStoresNothing() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.finish() } }
        try await harness.subscribe("plain")
        let reply = try await harness.create([
            "title": "Hi", "test": true, "audience": ["type": "resource", "resource_id": harness.resourceId],
        ])
        #expect(reply.status == 422)
        #expect(reply.errorText.contains("no test device"), "\(reply.errorText)")
        let messages = try await harness.server.admin("GET", "/messages")
        #expect(messages.array.isEmpty, "\(messages.array)")
        try await harness.engine.drain()
        #expect(harness.sender.pushes.isEmpty)
    }

    @Test func markingAnUnknownDeviceOrABadProviderIsRefused() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.finish() } }
        let path = "/resources/\(harness.resourceId)/test-devices"
        let unknown = try await harness.server.admin("PUT", path, json: ["subscription_id": "nobody", "is_test": true])
        #expect(unknown.status == 404 && unknown.errorText.contains("no push subscription"), "\(unknown.errorText)")
        let provider = try await harness.server.admin(
            "PUT", path, json: ["provider": "fax", "subscription_id": "x", "is_test": true])
        #expect(provider.status == 400 && provider.errorText.contains("provider"), "\(provider.errorText)")
        let missing = try await harness.server.admin("PUT", path, json: ["subscription_id": "x"])
        #expect(missing.status == 400 && missing.errorText.contains("is_test"), "\(missing.errorText)")
    }
}
