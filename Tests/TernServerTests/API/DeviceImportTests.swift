import Foundation
import TernProtocol
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

    /// The tags of each of the harness's devices, by token, read through the admin API's profile.
    static func tags(_ harness: DeliveryHarness, _ profileIds: [String]) async throws -> [String: [String: String]] {
        var tags: [String: [String: String]] = [:]
        for profile in Set(profileIds) {
            tags.merge(try await TagsAPITests.tags(harness.server, profile: profile)) { _, new in new }
        }
        return tags.filter { !$0.value.isEmpty }
    }

    @Test(arguments: StoreFactory.all)
    func importedTagsAndTestMarksReachTheAudiencesThatFilterOnThem(store: StoreFactory) async throws {
        let harness = try await DeliveryHarness.make(store: store)
        defer { Task { await harness.finish() } }
        let devices: [[String: Any]] = [
            ["subscription_id": "gold", "tags": ["tier": "gold", "beta": "1"], "is_test": true],
            ["subscription_id": "silver", "matching": ["email": "sam@example.com"], "tags": ["tier": "silver"]],
            ["subscription_id": "plain", "tags": [String: String](), "is_test": false],
        ]
        let reply = try await Self.importDevices(harness, devices)
        try #require(reply.status == 200, "\(reply.errorText)")
        #expect(reply.json.int("imported") == 3)
        let profiles = try #require(reply.json["profile_ids"] as? [String])
        #expect(
            try await Self.tags(harness, profiles) == [
                "gold": ["tier": "gold", "beta": "1"], "silver": ["tier": "silver"],
            ])

        let resource: [String: Any] = ["type": "resource", "resource_id": harness.resourceId]
        _ = try await harness.send(resource.merging(["tags": ["tier": "gold"]]) { $1 })
        try await harness.engine.drain()
        #expect(harness.sentTokens == ["gold"], "a tag filter reaches the device imported with the tag")
        _ = try await harness.send(resource.merging(["tags": ["tier": NSNull()]]) { $1 })
        try await harness.engine.drain()
        #expect(harness.sender.pushes.dropFirst(1).map(\.token).sorted() == ["gold", "silver"])
        _ = try await harness.send(resource, extra: ["test": true])
        try await harness.engine.drain()
        #expect(harness.sender.pushes.dropFirst(3).map(\.token) == ["gold"], "a test send reaches the marked one")
        let listed = try await harness.server.admin("GET", "/test-devices")
        #expect(listed.array.compactMap { $0["subscription_id"] as? String } == ["gold"])
    }

    @Test(arguments: StoreFactory.all)
    func importingTagsAgainChangesNothingAndTheSDKsNewerTagsWin(store: StoreFactory) async throws {
        let harness = try await DeliveryHarness.make(store: store)
        defer { Task { await harness.finish() } }
        let file: [[String: Any]] = [
            ["subscription_id": "a", "tags": ["tier": "gold", "city": "Paris"], "is_test": true],
            ["subscription_id": "b", "tags": ["tier": "gold"]],
        ]
        let first = try await Self.importDevices(harness, file)
        try #require(first.status == 200, "\(first.errorText)")
        let profiles = try #require(first.json["profile_ids"] as? [String])
        // Through the SDK since: a's tier (its subscription's time stays 0), and b subscribed at 5 s.
        let set = try await harness.server.sdk(
            .profileTagsSet, ["provider": "ios-apns", "subscription_id": "a", "tags": ["tier": "platinum"]])
        try #require(set.status == 200, "\(set.errorText)")
        try await harness.subscribe("b", time: 5_000)
        let expected = ["a": ["tier": "platinum", "city": "Paris"], "b": ["tier": "gold"]]
        #expect(try await Self.tags(harness, profiles) == expected)

        let again = try await Self.importDevices(harness, file)
        try #require(again.status == 200, "\(again.errorText)")
        #expect(again.json.int("imported") == 2)
        #expect(again.json["profile_ids"] as? [String] == profiles)
        #expect(try await Self.tags(harness, profiles) == expected, "the same file again changes nothing")

        // A row of time 0 still applies where the device said nothing newer: a new key, a changed
        // imported one; the tier the SDK set is newer and kept. b's row is older than its subscribe.
        let changed: [[String: Any]] = [
            ["subscription_id": "a", "tags": ["tier": "bronze", "city": "Lyon", "lang": "fr"]],
            ["subscription_id": "b", "tags": ["tier": "bronze"]],
        ]
        #expect(try await Self.importDevices(harness, changed).json.int("imported") == 2)
        #expect(
            try await Self.tags(harness, profiles)
                == ["a": ["tier": "platinum", "city": "Lyon", "lang": "fr"], "b": ["tier": "gold"]])
        // A row that says it is newer than the SDK's word wins.
        let later = ServerClock.milliseconds() + 60_000
        let newer: [[String: Any]] = [
            ["subscription_id": "a", "tags": ["tier": "bronze"], "time": later],
            ["subscription_id": "b", "tags": ["tier": "bronze"], "time": 6_000],
        ]
        #expect(try await Self.importDevices(harness, newer).json.int("imported") == 2)
        #expect(
            try await Self.tags(harness, profiles)
                == ["a": ["tier": "bronze", "city": "Lyon", "lang": "fr"], "b": ["tier": "bronze"]])
    }

    @Test(arguments: StoreFactory.all)
    func aDeviceThatWouldKeepTooManyTagsFailsAloneAndKeepsItsOwn(store: StoreFactory) async throws {
        let harness = try await DeliveryHarness.make(store: store)
        defer { Task { await harness.finish() } }
        func tags(_ prefix: String, _ count: Int) -> [String: String] {
            Dictionary(uniqueKeysWithValues: (0..<count).map { ("\(prefix)\($0)", "v") })
        }
        // A device keeps up to 200 tags (more than profile/tags/set's 100 a request): an export of any imports.
        let first = try await Self.importDevices(harness, [["subscription_id": "full", "tags": tags("a", 150)]])
        try #require(first.status == 200, "\(first.errorText)")
        #expect(first.json.int("imported") == 1)
        let profile = try #require((first.json["profile_ids"] as? [String])?.first)

        let more = try await Self.importDevices(
            harness,
            [
                ["subscription_id": "other", "tags": ["x": "y"]],
                ["subscription_id": "full", "tags": tags("b", 60), "custom_fields": ["plan": "gold"]],
            ])
        try #require(more.status == 200, "\(more.errorText)")
        #expect(more.json.int("imported") == 1)
        let failed = try #require(more.json["failed"] as? [[String: Any]])
        #expect(failed.map { $0.int("index") } == [1])
        #expect((failed.first?["error"] as? String)?.contains("would have 210 tags") == true, "\(failed)")
        let view = try await harness.server.admin("GET", "/profiles/\(profile)")
        let subscription = try #require((view.json["subscriptions"] as? [[String: Any]])?.first)
        #expect((subscription["tags"] as? [String: String]) == tags("a", 150))
        #expect((subscription["fields"] as? [String: Any])?["plan"] == nil, "the device's write is undone")
    }

    /// What `tern import devices` and the dashboard send of an export is split by size alone: a
    /// part of up to 1,000,000 bytes passes the body's limits however many short tags its devices have.
    @Test func aPartOfDevicesWithManyShortTagsIsWithinTheBodysLimits() throws {
        let tags = (0..<TagLimits.maxPerBinding).map { "\"\($0)\":\"\"" }.joined(separator: ",")
        var devices: [String] = []
        var bytes = 0
        while true {
            let device = #"{"subscription_id":"t\#(devices.count)","tags":{\#(tags)}}"#
            guard bytes + device.utf8.count + 1 < 1_000_000 else { break }
            devices.append(device)
            bytes += device.utf8.count + 1
        }
        let body = Data(#"{"devices":["#.utf8) + Data(devices.joined(separator: ",").utf8) + Data("]}".utf8)
        #expect(devices.count * TagLimits.maxPerBinding > 100_000, "\(devices.count) devices")
        try DeviceImport.limits.check(body)
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
            (["subscription_id": "t", "tags": ["": "x"]], "devices[1]: a tag key is empty"),
            (
                ["subscription_id": "t", "tags": [String(repeating: "k", count: 129): "x"]],
                "devices[1]: tag key \"kkk"
            ),
            (
                ["subscription_id": "t", "tags": ["ok": "v", "k": String(repeating: "v", count: 1025)]],
                "devices[1]: the value of tag \"k\" is longer than 1024 characters"
            ),
            (["subscription_id": "t", "tags": ["bad\u{7}key": "x"]], "devices[1]: tag key \"bad\u{7}key\" contains a"),
            (
                ["subscription_id": "t", "tags": Dictionary(uniqueKeysWithValues: (0...200).map { ("k\($0)", "v") })],
                "devices[1]: tags has 201 entries: a device keeps at most 200"
            ),
            (["subscription_id": "t", "tags": ["n": 1]], "devices[1].tags.n"),
            (["subscription_id": "t", "is_test": "yes"], "devices[1].is_test"),
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
