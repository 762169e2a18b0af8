import Foundation
import TernProtocol
import Testing

@testable import TernServer

/// profile/tags/set and profile/tags/remove: tags of the install's current binding, cleared when the
/// install moves to another profile.
@Suite struct TagsAPITests {
    static var device: [String: Any] { ["provider": "ios-apns", "subscription_id": "token-1"] }

    static func set(_ tags: [String: String], token: String = "token-1") -> [String: Any] {
        ["provider": "ios-apns", "subscription_id": token, "tags": tags]
    }

    static func remove(_ keys: [String]) -> [String: Any] {
        ["provider": "ios-apns", "subscription_id": "token-1", "keys": keys]
    }

    /// The tags of each of the profile's subscriptions, by push token.
    static func tags(_ server: InProcessServer, profile: String?) async throws -> [String: [String: String]] {
        let view = try await server.admin("GET", "/profiles/\(profile ?? "")")
        #expect(view.status == 200, "\(view.errorText)")
        var result: [String: [String: String]] = [:]
        for subscription in view.json["subscriptions"] as? [[String: Any]] ?? [] {
            result[subscription["subscription_id"] as? String ?? ""] = subscription["tags"] as? [String: String]
        }
        return result
    }

    @Test func tagsAreSetMergedAndRemovedOnTheDevicesSubscription() async throws {
        let server = try await InProcessServer()
        defer { Task { await server.finish() } }
        let subscribed = try await server.sdk(.pushSubscribe, InProcessServer.subscription())
        let profile = subscribed.profile?.id
        let first = try await server.sdk(.profileTagsSet, Self.set(["interest": "travel", "tier": "gold"]))
        #expect(first.status == 200, "\(first.errorText)")
        #expect(first.profile?.id == profile)
        #expect(first.profile?.subscription?.subscriptionId == "token-1")
        let second = try await server.sdk(.profileTagsSet, Self.set(["tier": "platinum", "city": ""]))
        #expect(second.status == 200)
        #expect(
            try await Self.tags(server, profile: profile)
                == ["token-1": ["interest": "travel", "tier": "platinum", "city": ""]])

        let removed = try await server.sdk(.profileTagsRemove, Self.remove(["tier", "never-set"]))
        #expect(removed.status == 200, "\(removed.errorText)")
        #expect(try await Self.tags(server, profile: profile) == ["token-1": ["interest": "travel", "city": ""]])
    }

    @Test func tagsBeforeTheDeviceSubscribedAre404WithTheReason() async throws {
        let server = try await InProcessServer()
        defer { Task { await server.finish() } }
        let reply = try await server.sdk(.profileTagsSet, Self.set(["interest": "travel"]))
        #expect(reply.status == 404)
        #expect(reply.errorText.contains("subscribe the device (push/subscribe) before setting tags"))

        let signer = try await TestSigner.register(on: server)
        let dbId = try await JWTAuthTests.databaseId(server)
        let ada = try signer.token(["db_id": dbId, "email": "ada@example.com"])
        _ = try await server.sdk(.profileUpdate, ["profile_fields": ["_fname": "Ada"]], jwt: ada)
        let noSubscription = try await server.sdk(.profileTagsSet, Self.set(["a": "b"]), jwt: ada)
        #expect(noSubscription.status == 404)
        #expect(noSubscription.errorText.contains("has no push subscription with this token"))
    }

    @Test(
        arguments: [
            (["tags": [String: String]()], "tags is empty"),
            (["tags": ["": "x"]], "a tag key is empty"),
            (["tags": [String(repeating: "k", count: 129): "x"]], "longer than 128 characters"),
            (["tags": ["k": String(repeating: "v", count: 1025)]], "longer than 1024 characters"),
            (["tags": ["bad\u{7}key": "x"]], "control character"),
            (["tags": Dictionary(uniqueKeysWithValues: (0...100).map { ("k\($0)", "v") })], "send at most 100"),
        ] as [([String: [String: String]], String)])
    func badTagsAre400WithTheReason(body: [String: [String: String]], reason: String) async throws {
        let server = try await InProcessServer()
        defer { Task { await server.finish() } }
        _ = try await server.sdk(.pushSubscribe, InProcessServer.subscription())
        let reply = try await server.sdk(.profileTagsSet, Self.set(body["tags"] ?? [:]))
        #expect(reply.status == 400)
        #expect(reply.errorText.contains(reason), "\(reply.errorText)")
    }

    @Test func badRemovalsAndDevicesAre400() async throws {
        let server = try await InProcessServer()
        defer { Task { await server.finish() } }
        let empty = try await server.sdk(.profileTagsRemove, Self.remove([]))
        #expect(empty.status == 400)
        #expect(empty.errorText.contains("keys is empty"))
        let provider = try await server.sdk(
            .profileTagsSet, ["provider": "android", "subscription_id": "t", "tags": ["a": "b"]])
        #expect(provider.status == 400)
        #expect(provider.errorText.contains("provider \"android\" is not valid"))
        let missing = try await server.sdk(.profileTagsSet, ["tags": ["a": "b"]])
        #expect(missing.status == 400)
    }

    @Test func aBindingKeepsAtMost200Tags() async throws {
        let server = try await InProcessServer()
        defer { Task { await server.finish() } }
        _ = try await server.sdk(.pushSubscribe, InProcessServer.subscription())
        for batch in 0..<2 {
            let tags = Dictionary(uniqueKeysWithValues: (0..<100).map { ("k\(batch)-\($0)", "v") })
            #expect(try await server.sdk(.profileTagsSet, Self.set(tags)).status == 200)
        }
        let over = try await server.sdk(.profileTagsSet, Self.set(["one-more": "v"]))
        #expect(over.status == 400)
        #expect(over.errorText.contains("keep at most 200"))
        let overwrite = try await server.sdk(.profileTagsSet, Self.set(["k0-1": "changed"]))
        #expect(overwrite.status == 200, "overwriting a kept key does not add one")
    }

    @Test func logInAndLogOutWithUnsuspendClearTheTagsOfBothBindings() async throws {
        let server = try await InProcessServer()
        defer { Task { await server.finish() } }
        let signer = try await TestSigner.register(on: server)
        let dbId = try await JWTAuthTests.databaseId(server)
        let ada = try signer.token(["db_id": dbId, "email": "ada@example.com"])
        let bob = try signer.token(["db_id": dbId, "email": "bob@example.com"])

        // Bob had the device, then Ada signed in on it: Bob's subscription is suspended.
        let bobProfile = try await server.sdk(.pushSubscribe, InProcessServer.subscription(), jwt: bob).profile?.id
        _ = try await server.sdk(.profileTagsSet, Self.set(["owner": "bob"]), jwt: bob)
        _ = try await server.sdk(.pushUnsuspend, Self.device, jwt: ada)
        #expect(try await Self.tags(server, profile: bobProfile) == ["token-1": [:]], "Bob's binding ended")
        let adaProfile = try await server.sdk(
            .pushSubscribe, InProcessServer.subscription(time: 2000), jwt: ada
        ).profile?.id
        let tagged = try await server.sdk(.profileTagsSet, Self.set(["owner": "ada", "plan": "pro"]), jwt: ada)
        #expect(tagged.status == 200, "\(tagged.errorText)")
        #expect(try await Self.tags(server, profile: adaProfile) == ["token-1": ["owner": "ada", "plan": "pro"]])

        // A repeated unsuspend for the same user changes no binding and keeps the tags.
        _ = try await server.sdk(.pushUnsuspend, Self.device, jwt: ada)
        #expect(try await Self.tags(server, profile: adaProfile) == ["token-1": ["owner": "ada", "plan": "pro"]])

        // Ada logs out and Bob is back: both bindings start over without tags.
        let back = try await server.sdk(.pushUnsuspend, Self.device, jwt: bob)
        #expect(back.profile?.subscription?.status == "subscribed")
        #expect(try await Self.tags(server, profile: adaProfile) == ["token-1": [:]])
        #expect(try await Self.tags(server, profile: bobProfile) == ["token-1": [:]])
    }

    @Test func replaceClearsTheTagsOfTheSubscriptionsItUnsubscribes() async throws {
        let server = try await InProcessServer()
        defer { Task { await server.finish() } }
        let signer = try await TestSigner.register(on: server)
        let dbId = try await JWTAuthTests.databaseId(server)
        let ada = try signer.token(["db_id": dbId, "email": "ada@example.com"])
        let anonymous = try await server.sdk(.pushSubscribe, InProcessServer.subscription()).profile?.id
        _ = try await server.sdk(.profileTagsSet, Self.set(["seen": "onboarding"]))
        _ = try await server.sdk(
            .pushSubscribe, InProcessServer.subscription(time: 2000, extra: ["replace": true]), jwt: ada)
        #expect(try await Self.tags(server, profile: anonymous) == ["token-1": [:]])
    }

    @Test func aRepeatedKeyIsAnsweredOnceAndAudienceLookupFindsTaggedSubscriptions() async throws {
        let server = try await InProcessServer()
        defer { Task { await server.finish() } }
        _ = try await server.sdk(.pushSubscribe, InProcessServer.subscription())
        _ = try await server.sdk(.pushSubscribe, InProcessServer.subscription(token: "token-2"))
        let first = try await server.sdk(.profileTagsSet, Self.set(["interest": "travel"]), key: "tags-1")
        let again = try await server.sdk(.profileTagsSet, Self.set(["interest": "travel"]), key: "tags-1")
        #expect(first.status == 200)
        #expect(again.header("Idempotent-Replayed") == "true")
        _ = try await server.sdk(.profileTagsSet, Self.set(["interest": "food"], token: "token-2"))

        let resourceId = server.bootstrap.resourceId
        let (travel, any, none) = try await server.store.read { tx in
            (
                try tx.subscriptionIds(resourceId: resourceId, tag: "interest", value: "travel"),
                try tx.subscriptionIds(resourceId: resourceId, tag: "interest", value: nil),
                try tx.subscriptionIds(resourceId: resourceId, tag: "plan", value: nil)
            )
        }
        #expect(travel.count == 1)
        #expect(any.count == 2)
        #expect(none.isEmpty)
        let subscription = try await server.store.read { tx in try tx.subscription(id: travel[0]) }
        #expect(subscription?.token == "token-1")
    }
}
