import Foundation
import TernHTTP
import TernProfile
import TernSDKTestKit
import Testing

/// `updateProfileFields` against a loopback API.
@Suite(.serialized) struct UpdateProfileFieldsTests {
    @Test func fieldsAndOperationsAreSentWithTheJWTAndTheAnswerReachesTheEvent() async throws {
        let api = try LoopbackAPI()
        await api.answer(
            .json(
                200, Data(#"{"error":0,"error_text":"","profile":{"id":"p1","status":"active","is_test":false}}"#.utf8))
        )
        let sdk = try TestSDK(modules: ["TernPush", "TernProfile"])
        sdk.configure(apiUrl: api.apiUrl, jwt: "user.jwt.token")
        var fields: [String: Any?] = ["_fname": "Andrey", "tags": ["a", "b"], "address": ["city": "Lisbon"]]
        fields.merge(sdk.tern.profile.update.actionField("visits").incr(1)) { _, new in new }
        let queued = sdk.tern.profile.update.updateProfileFields(profileFields: fields, skipTriggers: true)
        #expect(queued.state == .queued)

        let success = try #require(await sdk.events.first("profileUpdateRequestSuccessful"))
        #expect(success.httpCode == 200)
        #expect(success.profile?.id == "p1")
        #expect(success.function == "updateProfileFields")
        let request = try #require(await api.requests.first)
        #expect(request.path == "/api/v1/profile/update")
        #expect(request.header("Authorization") == "Bearer user.jwt.token")
        #expect(request.header("Idempotency-Key") == queued.id)
        let body = jsonObject(request.body)
        #expect(body["skip_triggers"] as? Bool == true)
        let sent = try #require(body["profile_fields"] as? [String: Any])
        #expect(sent["_fname"] as? String == "Andrey")
        #expect(sent["tags"] as? [String] == ["a", "b"])
        #expect((sent["address"] as? [String: Any])?["city"] as? String == "Lisbon")
        #expect((sent["visits"] as? [String: Any])?["action"] as? String == "incr")
        api.stop()
        await sdk.close()
    }

    @Test func withoutAJWTProviderNothingIsQueuedAndJwtIsNilSaysWhy() async throws {
        let api = try LoopbackAPI()
        let sdk = try TestSDK(modules: ["TernPush", "TernProfile"])
        sdk.configure(apiUrl: api.apiUrl)
        sdk.tern.profile.update.updateProfileFields(profileFields: ["_fname": "A"])
        let refusal = try #require(await sdk.events.first("jwtIsNil"))
        #expect(refusal.isError)
        #expect(refusal.function == "updateProfileFields")
        #expect(refusal.reason?.contains("JWT") == true)
        #expect(await sdk.tern.outboxStatistics()?.enqueuedTotal == 0)
        #expect(await api.requests.isEmpty)
        api.stop()
        await sdk.close()
    }

    /// The call returned `.queued` before the refusal: syncStates must still say how it ended.
    @Test func anUpdateRefusedForWantOfAJWTEndsFailedInSyncStates() async throws {
        let api = try LoopbackAPI()
        let sdk = try TestSDK(modules: ["TernPush", "TernProfile"])
        sdk.configure(apiUrl: api.apiUrl)
        let updates = await sdk.tern.syncStates()
        let refused = sdk.tern.profile.update.updateProfileFields(profileFields: ["_fname": "A"])
        #expect(refused.state == .queued)
        // The first state reported for the request, nil after 10 s (a refusal never reported).
        let final = await firstSyncStates(of: [refused.id], in: updates)[refused.id]
        guard case .failed(let reason) = final else {
            Issue.record("expected .failed, got \(String(describing: final))")
            return
        }
        #expect(reason.contains("JWT"))
        api.stop()
        await sdk.close()
    }

    @Test func aValueJSONCannotCarryIsRefusedAtOnce() async throws {
        let api = try LoopbackAPI()
        let sdk = try TestSDK(modules: ["TernPush", "TernProfile"])
        sdk.configure(apiUrl: api.apiUrl, jwt: "jwt")
        let refused = sdk.tern.profile.update.updateProfileFields(profileFields: ["born": Date(), "ok": 1])
        guard case .failed(let reason) = refused.state else {
            Issue.record("a Date was queued")
            return
        }
        #expect(reason.contains("\"born\""))
        let event = try #require(await sdk.events.first("profileUpdateRequestDataIsNil"))
        #expect(event.field == "born")
        #expect(event.isError)
        await sdk.settle()
        #expect(await sdk.tern.outboxStatistics()?.enqueuedTotal == 0)
        api.stop()
        await sdk.close()
    }

    @Test func aRefusalIsProfileUpdateRequestFailedWithTheServersText() async throws {
        let api = try LoopbackAPI()
        await api.answer(.envelopeError(400, "Platform profile processing error: with field \"x\": Incorrect field"))
        let sdk = try TestSDK(modules: ["TernPush", "TernProfile"])
        sdk.configure(apiUrl: api.apiUrl, jwt: "jwt")
        sdk.tern.profile.update.updateProfileFields(profileFields: ["x": 1])
        let failure = try #require(await sdk.events.first("profileUpdateRequestFailed"))
        #expect(failure.isError && !failure.isRetry)
        #expect(failure.httpCode == 400)
        #expect(failure.errorText == "Platform profile processing error: with field \"x\": Incorrect field")
        api.stop()
        await sdk.close()
    }
}
