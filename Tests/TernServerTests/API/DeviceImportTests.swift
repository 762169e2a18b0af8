import Foundation
import Testing

@testable import TernServer

/// `POST /api/v1/admin/resources/{id}/devices/import`: tokens from another vendor become push
/// subscriptions a message reaches; a device the store refuses fails alone, a file with a bad row is
/// refused whole; importing again
/// changes nothing, and never undoes what a device said through the SDK since. On every backend.
@Suite struct DeviceImportTests {
    static func importDevices(_ harness: DeliveryHarness, _ devices: [[String: Any]], resource: Int64? = nil)
        async throws -> InProcessServer.Reply
    {
        try await harness.server.admin(
            "POST", "/resources/\(resource ?? harness.resourceId)/devices/import", json: ["devices": devices])
    }

    static func subscriptionCount(_ harness: DeliveryHarness) async throws -> [String: Int64] {
        let overview = try await harness.server.admin("GET", "/overview", query: ["days": "1"])
        let counts = try #require(overview.json["subscriptions"] as? [[String: Any]])
        return Dictionary(uniqueKeysWithValues: counts.map { ("\($0["status"] ?? "")", $0.int("count")) })
    }

    @Test(arguments: StoreFactory.all)
    func importedTokensAreReachedAndABadDeviceFailsAlone(store: StoreFactory) async throws {
        let harness = try await DeliveryHarness.make(store: store)
        defer { Task { await harness.finish() } }
        try await harness.addCategory("news")
        let devices: [[String: Any]] = [
            [
                "provider": "ios-apns", "subscription_id": "ann-phone", "matching": ["email": "ann@example.com"],
                "profile_fields": ["_fname": "Ann"], "cats": [["name": "news", "active": true]],
            ],
            ["subscription_id": "ann-tablet", "matching": ["email": "ann@example.com"]],
            ["subscription_id": "someone"],
            ["subscription_id": "bad-category", "cats": [["name": "sports", "active": true]]],
            ["subscription_id": "nobody's", "matching": ["profile_id": "p_not_a_profile"]],
        ]
        let reply = try await Self.importDevices(harness, devices)
        try #require(reply.status == 200, "\(reply.errorText)")
        #expect(reply.json.int("imported") == 3)
        let failed = try #require(reply.json["failed"] as? [[String: Any]])
        #expect(failed.map { $0.int("index") } == [3, 4])
        #expect((failed.first?["error"] as? String)?.contains("category not found in resource") == true)
        let profiles = try #require(reply.json["profile_ids"] as? [Any])
        let ann = try #require(profiles[0] as? String)
        #expect(profiles[1] as? String == ann, "one person's two devices share a profile")
        #expect((profiles[2] as? String).map { $0 != ann } == true)
        #expect(profiles[3...].allSatisfy { $0 is NSNull })

        // A message reaches the imported devices, personalized from the imported profile fields.
        _ = try await harness.send(
            ["type": "resource", "resource_id": harness.resourceId], extra: ["body": "Hi {{_fname|there}}"])
        try await harness.engine.drain()
        let bodies = try Dictionary(
            uniqueKeysWithValues: harness.sender.pushes.map { push in
                (push.token, try LiveActivityTests.payload(push).aps["alert"] as? [String: Any] ?? [:])
            })
        #expect(Set(bodies.keys) == ["ann-phone", "ann-tablet", "someone"])
        #expect(bodies["ann-phone"]?["body"] as? String == "Hi Ann")
        #expect(bodies["someone"]?["body"] as? String == "Hi there")
    }

    @Test(arguments: StoreFactory.all)
    func importingAgainChangesNothingAndTheSDKsNewerWordWins(store: StoreFactory) async throws {
        let harness = try await DeliveryHarness.make(store: store)
        defer { Task { await harness.finish() } }
        let devices: [[String: Any]] = [
            ["subscription_id": "kept", "matching": ["field_name": "user_id", "field_value": 42]],
            ["subscription_id": "left-since"],
        ]
        let first = try await Self.importDevices(harness, devices)
        try #require(first.status == 200, "\(first.errorText)")
        #expect(first.json.int("imported") == 2)
        // The device itself says it unsubscribed (the SDK's time is the device's clock, after 0).
        try await harness.subscribe("left-since", endpoint: .pushUnsubscribe, time: 5_000)

        let again = try await Self.importDevices(harness, devices)
        try #require(again.status == 200, "\(again.errorText)")
        #expect(again.json["profile_ids"] as? [String] == first.json["profile_ids"] as? [String])
        #expect(try await Self.subscriptionCount(harness) == ["subscribed": 1, "unsubscribed": 1])

        // A row that says when it was true (after the device's word) is applied.
        let newer = try await Self.importDevices(harness, [["subscription_id": "left-since", "time": 6_000]])
        #expect(newer.json.int("imported") == 1)
        #expect(try await Self.subscriptionCount(harness) == ["subscribed": 2])
    }

    @Test func aRequestThatCannotBeImportedIsRefusedWhole() async throws {
        let harness = try await DeliveryHarness.make(store: .sqlite)
        defer { Task { await harness.finish() } }
        let empty = try await Self.importDevices(harness, [])
        #expect(empty.status == 400)
        #expect(empty.errorText.contains("devices is empty"))
        let many = try await Self.importDevices(harness, (0...1000).map { ["subscription_id": "t\($0)"] })
        #expect(many.status == 400)
        #expect(many.errorText.contains("\"devices\" has more than 1000 items"))
        let unreadable = try await Self.importDevices(harness, [["subscription_id": 7]])
        #expect(unreadable.status == 400)
        #expect(unreadable.errorText.contains("devices[0].subscription_id"))
        let bad: [(device: [String: Any], says: String)] = [
            (["provider": "ios-pager", "subscription_id": "t"], "devices[1]: provider \"ios-pager\" is not valid"),
            (["subscription_id": ""], "devices[1]: subscription_id is empty"),
            (["subscription_id": "t", "status": "maybe"], "devices[1]: status \"maybe\" is not valid"),
            (["subscription_id": "t", "matching": ["email": "a@example.com", "phone": "+1555"]], "exactly one of"),
            (["subscription_id": "t", "matching": ["db_id": 1]], "devices[1]: matching.db_id is not valid"),
            (["subscription_id": "t", "profile_fields": ["bad name": 1]], "with field \"bad name\""),
            (["subscription_id": "t", "custom_fields": ["list": [1, 2]]], "field \"list\" is not valid"),
        ]
        for (device, says) in bad {
            let reply = try await Self.importDevices(harness, [["subscription_id": "fine"], device])
            #expect(reply.status == 400, "\(device)")
            #expect(reply.errorText.contains(says), "\(reply.errorText)")
        }
        let missing = try await Self.importDevices(harness, [["subscription_id": "x"]], resource: 999)
        #expect(missing.status == 404)
        #expect(try await Self.subscriptionCount(harness) == [:])
    }
}
