import Foundation
import TernProfile
import TernPush
import TernSDKTestKit
import TernTestSupport
import Testing

/// Tags from the SDK to a real `tern serve`: set, removed, and cleared when the device logs out.
@Suite(.serialized) struct TagsEndToEndTests {
    static let token = "e2e-tags-apns-token"

    /// The tags of the subscription with the test's token in the profile `id`.
    static func tags(_ server: RealServer, profile id: String) async throws -> [String: String]? {
        let subscriptions = try await server.profile(id: id)?["subscriptions"] as? [[String: Any]] ?? []
        return subscriptions.first { $0["subscription_id"] as? String == token }?["tags"] as? [String: String]
    }

    @Test func tagsAreSetAndRemovedOnTheAnonymousDevice() async throws {
        let server = try await RealServer.start()
        let sdk = try TestSDK()
        sdk.configure(apiUrl: server.apiUrl, rToken: server.rToken)
        sdk.tern.push.token.setToken(provider: "ios-apns", pushToken: Self.token)
        sdk.tern.push.subscription.subscribe()
        sdk.tern.profile.tags.setTags(["interest": "travel", "tier": "gold"])
        sdk.tern.profile.tags.removeTags(["tier"])
        sdk.tern.profile.tags.setTags(["language": "pt"])

        let subscribed = try #require(await sdk.events.first("pushSubscribeRequestSuccessful"))
        let profile = try #require(subscribed.profile?.id)
        let removed = try #require(await sdk.events.first("removeTagsRequestSuccessful"))
        // The ordered lane sends the last setTags after the removal.
        let last = try #require(
            await sdk.events.first(where: { $0.name == "setTagsRequestSuccessful" }, after: removed.index + 1))
        #expect(last.profile?.id == profile)
        #expect(try await Self.tags(server, profile: profile) == ["interest": "travel", "language": "pt"])
        await sdk.close()
        await server.stop()
    }

    @Test func loggingOutClearsTheSignedInUsersTags() async throws {
        let server = try await RealServer.start()
        let sdk = try TestSDK()
        // The device first runs anonymously (rToken), then Ada signs in (JWT) and subscribes.
        sdk.configure(apiUrl: server.apiUrl, rToken: server.rToken)
        sdk.tern.push.token.setToken(provider: "ios-apns", pushToken: Self.token)
        sdk.tern.push.subscription.subscribe()
        let anonymous = try #require(await sdk.events.first("pushSubscribeRequestSuccessful")?.profile?.id)
        sdk.tern.profile.tags.setTags(["seen": "onboarding"])
        _ = try #require(await sdk.events.first("setTagsRequestSuccessful"))
        #expect(try await Self.tags(server, profile: anonymous) == ["seen": "onboarding"])

        sdk.tern.setJWTProvider(provider: FixedJWT(try server.jwt(email: "ada@example.com")))
        let login = await sdk.tern.push.subscription.unSuspend()
        #expect(login?.httpCode == 200)
        #expect(login?.response?.profile == nil, "Ada has no profile yet")
        sdk.tern.push.subscription.subscribe()
        sdk.tern.profile.tags.setTags(["plan": "pro"])
        let tagged = try #require(
            await sdk.events.first(where: { $0.name == "setTagsRequestSuccessful" && $0.profile?.id != anonymous }))
        let ada = try #require(tagged.profile?.id)
        #expect(ada != anonymous)
        #expect(try await Self.tags(server, profile: ada) == ["plan": "pro"])
        #expect(try await Self.tags(server, profile: anonymous) == [:], "the anonymous binding ended at log-in")

        // Log-out: the app signs out and moves the device back to the anonymous profile (its JWT
        // names that profile) with unSuspend.
        sdk.tern.setJWTProvider(provider: FixedJWT(try server.jwt(matching: ["profile_id": anonymous])))
        let logout = await sdk.tern.push.subscription.unSuspend()
        #expect(logout?.httpCode == 200)
        #expect(logout?.response?.profile?.id == anonymous)
        #expect(logout?.response?.profile?.subscription?.status == "subscribed")
        #expect(try await Self.tags(server, profile: ada) == [:], "Ada's tags went with her binding")

        // Tags set now belong to the anonymous binding.
        await sdk.settle()
        let seen = sdk.events.count
        sdk.tern.profile.tags.setTags(["plan": "free"])
        let after = try #require(await sdk.events.first(where: { $0.name == "setTagsRequestSuccessful" }, after: seen))
        #expect(after.profile?.id == anonymous)
        #expect(after.httpCode == 200)
        #expect(try await Self.tags(server, profile: anonymous) == ["plan": "free"])
        #expect(try await Self.tags(server, profile: ada) == [:])
        await sdk.close()
        await server.stop()
    }
}
