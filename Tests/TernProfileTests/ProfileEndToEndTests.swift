import Foundation
import TernProfile
import TernSDKTestKit
import TernTestSupport
import Testing

/// `updateProfileFields` through the outbox to a real `tern serve`, read back through the admin API.
@Suite(.serialized) struct ProfileEndToEndTests {
    @Test func incrAndUpsertChangeTheStoredFields() async throws {
        let server = try await RealServer.start()
        let sdk = try TestSDK()
        sdk.configure(apiUrl: server.apiUrl, rToken: server.rToken, jwt: try server.jwt(email: "lin@example.com"))
        let update = sdk.tern.profile.update

        update.updateProfileFields(profileFields: ["_fname": "Lin", "orders": 2, "address": ["city": "Porto"]])
        _ = try #require(await sdk.events.first("profileUpdateRequestSuccessful"))
        let seen = sdk.events.count
        var fields = update.actionField("orders").incr(3)
        fields.merge(update.actionField("address").upsert(["zip": "4000", "city": "Lisbon"] as [String: Any?])) {
            _, new in new
        }
        fields.merge(update.actionField("visits").incr()) { _, new in new }
        update.updateProfileFields(profileFields: fields, skipTriggers: true)
        let second = try #require(
            await sdk.events.first(where: { $0.name == "profileUpdateRequestSuccessful" }, after: seen))
        #expect(second.httpCode == 200)
        #expect(second.profile?.id != nil)

        let stored = try await server.profile(email: "lin@example.com")?["fields"] as? [String: Any] ?? [:]
        #expect(stored["_fname"] as? String == "Lin")
        #expect(stored["orders"] as? Int == 5)
        #expect(stored["visits"] as? Int == 1)
        #expect(stored["address"] as? [String: String] == ["city": "Lisbon", "zip": "4000"])
        #expect(try await server.profile(email: "lin@example.com")?["skip_triggers"] as? Bool == true)
        await sdk.close()
        await server.stop()
    }

    @Test func aFieldTheServerCannotTakeFailsWithTheReferencesText() async throws {
        let server = try await RealServer.start()
        let sdk = try TestSDK()
        sdk.configure(apiUrl: server.apiUrl, rToken: server.rToken, jwt: try server.jwt(email: "kim@example.com"))
        sdk.tern.profile.update.updateProfileFields(profileFields: ["1st place": "x"])
        let failure = try #require(await sdk.events.first("profileUpdateRequestFailed"))
        #expect(failure.httpCode == 400)
        #expect(failure.errorText == "Platform profile processing error: with field \"1st place\": Incorrect field")
        await sdk.close()
        await server.stop()
    }
}
