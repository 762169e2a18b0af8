import Foundation
import TernHTTP
import TernPush
import TernSDKTestKit
import Testing

@testable import TernTarget

/// `sendTarget` against a loopback API: what goes on the wire, batching, and what is refused before
/// anything is queued.
@Suite(.serialized) struct SendTargetTests {
    /// The modules whose requests the scripted server expects (the inbox would sync for the JWT).
    static let modules = ["TernPush", "TernTarget"]

    /// Goals in the bodies the API received, in order.
    static func goals(_ api: LoopbackAPI) async -> [[String: Any]] {
        await api.requests.filter { $0.path == "/api/v1/event/post" }.flatMap {
            jsonObject($0.body)["events"] as? [[String: Any]] ?? []
        }
    }

    @Test func everyParameterIsOnTheWireWithTheReferencesKeys() async throws {
        let api = try LoopbackAPI()
        let sdk = try TestSDK(modules: Self.modules)
        sdk.configure(apiUrl: api.apiUrl, jwt: "header.claims.signature")
        let queued = sdk.tern.target.sendTarget(
            sid: "pixel-1", clientID: "client-7", eventName: "purchase", sendMessageId: "smid-3",
            payload: ["sum": 42.5, "count": 2, "big": UInt64(9_000_000_000), "paid": true, "note": "x", "none": nil],
            matching: ["email": "ada@example.com", "ids": [1, 2]], matchingType: "email",
            profileFields: ["_fname": "Ada", "orders": ["action": "incr", "value": 1]],
            subscription: EmailSubscription(resourceId: 2, email: "ada@example.com", customFields: ["src": "app"]),
            utm: UTM(campaign: "spring", content: "banner", keyword: "shoes", medium: "cpc", source: "ads", temp: "t"))
        #expect(queued.state == .queued)

        let success = try #require(await sdk.events.first("mobileEventRequestSuccessful"))
        #expect(success.httpCode == 200)
        #expect(success.function == "sendTarget")
        let request = try #require(await api.requests.first)
        #expect(request.path == "/api/v1/event/post")
        #expect(request.header("Authorization") == "Bearer header.claims.signature")
        #expect(request.header("X-Tern-RToken") == "rt_test")
        #expect(request.header("Idempotency-Key") == queued.id)
        let goal = try #require(await Self.goals(api).first)
        #expect(goal["sid"] as? String == "pixel-1")
        #expect(goal["client_id"] as? String == "client-7")
        #expect(goal["event_name"] as? String == "purchase")
        #expect(goal["send_message_id"] as? String == "smid-3")
        #expect(goal["matching_type"] as? String == "email")
        #expect((goal["time"] as? Int ?? 0) > 1_700_000_000_000)
        let payload = try #require(goal["payload"] as? [String: Any])
        #expect(payload["sum"] as? Double == 42.5)
        #expect(payload["count"] as? Int == 2)
        #expect(payload["big"] as? Int == 9_000_000_000)
        #expect(payload["paid"] as? Bool == true)
        #expect(payload["none"] is NSNull)
        #expect((goal["matching"] as? [String: Any])?["ids"] as? [Int] == [1, 2])
        let fields = try #require(goal["profile_fields"] as? [String: Any])
        #expect((fields["orders"] as? [String: Any])?["action"] as? String == "incr")
        let subscription = try #require(goal["subscription"] as? [String: Any])
        #expect(subscription["channel"] as? String == "email")
        #expect(subscription["resource_id"] as? Int == 2)
        #expect((subscription["custom_fields"] as? [String: Any])?["src"] as? String == "app")
        let utm = try #require(goal["utm"] as? [String: String])
        #expect(
            utm == [
                "campaign": "spring", "content": "banner", "keyword": "shoes", "medium": "cpc", "source": "ads",
                "temp": "t",
            ])
        api.stop()
        await sdk.close()
    }

    @Test func goalsQueuedWhileARequestIsOutGoTogetherInOneBatch() async throws {
        let api = try LoopbackAPI()
        // The held request must not time out and go again while the test queues more, however loaded the run.
        let sdk = try TestSDK(requestTimeout: 120, modules: Self.modules)
        sdk.configure(apiUrl: api.apiUrl)
        await api.hold()
        sdk.tern.target.sendTarget(sid: "s", eventName: "goal-0")
        // Wait until the first goal is out, then queue more while it waits for its answer.
        while await api.requests.isEmpty { try await Task.sleep(for: .milliseconds(10)) }
        for index in 1...5 { sdk.tern.target.sendTarget(sid: "s", eventName: "goal-\(index)") }
        await sdk.settle()
        await api.release()

        let batch = try #require(
            await sdk.events.first(where: { $0.name == "mobileEventRequestSuccessful" && $0.count == 5 }))
        #expect(batch.httpCode == 200)
        let requests = await api.requests
        #expect(requests.count == 2)
        #expect(await Self.goals(api).map { $0["event_name"] as? String } == (0...5).map { "goal-\($0)" })
        #expect(requests.allSatisfy { Set(jsonObject($0.body).keys) == ["events"] })
        api.stop()
        await sdk.close()
    }

    /// Once push registration gave the device a token, each batch of goals names the device
    /// (`provider`, `subscription_id` beside `events`), read when the batch goes; before, none.
    @Test func goalsNameTheDevicesTokenOnceItIsKnown() async throws {
        let api = try LoopbackAPI()
        let sdk = try TestSDK(modules: Self.modules)
        sdk.configure(apiUrl: api.apiUrl)
        sdk.tern.target.sendTarget(sid: "s", eventName: "before-token")
        let first = try #require(await sdk.events.first("mobileEventRequestSuccessful"))
        // A token with characters JSON escapes: the body stays valid JSON.
        let token = #"fcm:tok"en\1"#
        sdk.tern.push.token.setToken(provider: "ios-firebase", pushToken: token)
        sdk.tern.target.sendTarget(sid: "s", eventName: "after-token")
        _ = try #require(
            await sdk.events.first(where: { $0.name == "mobileEventRequestSuccessful" }, after: first.index + 1))

        let bodies = await api.requests.filter { $0.path == "/api/v1/event/post" }.map { jsonObject($0.body) }
        try #require(bodies.count == 2)
        #expect(Set(bodies[0].keys) == ["events"], "no token yet: no device named")
        #expect(Set(bodies[1].keys) == ["events", "provider", "subscription_id"])
        #expect(bodies[1]["provider"] as? String == "ios-firebase")
        #expect(bodies[1]["subscription_id"] as? String == token)
        #expect((bodies[1]["events"] as? [[String: Any]])?.first?["event_name"] as? String == "after-token")
        let decoded = try JSONDecoder().decode(
            GoalEventRequest.self, from: try #require(await api.requests.last?.body))
        #expect(decoded.provider == "ios-firebase" && decoded.subscriptionId == token)
        api.stop()
        await sdk.close()
    }

    /// A retry sends the bytes the batch first went with, the device it named included (the server
    /// answers a key sent again with another body 422): a token that came meanwhile waits for the
    /// next batch.
    @Test func aRetriedBatchNamesTheDeviceItFirstNamed() async throws {
        let api = try LoopbackAPI()
        let sdk = try TestSDK(modules: Self.modules)
        sdk.configure(apiUrl: api.apiUrl)
        await api.enqueue([ScriptedServer.failure(503, "not now")])
        await api.hold()
        sdk.tern.target.sendTarget(sid: "s", eventName: "goal-0")
        while await api.requests.isEmpty { try await Task.sleep(for: .milliseconds(10)) }
        sdk.tern.push.token.setToken(provider: "ios-apns", pushToken: "apns-token-2")
        await sdk.settle()
        await api.release()
        let first = try #require(await sdk.events.first("mobileEventRequestSuccessful"))
        sdk.tern.target.sendTarget(sid: "s", eventName: "goal-1")
        _ = try #require(
            await sdk.events.first(where: { $0.name == "mobileEventRequestSuccessful" }, after: first.index + 1))

        let requests = await api.requests.filter { $0.path == "/api/v1/event/post" }
        try #require(requests.count == 3)
        #expect(requests[1].body == requests[0].body, "the retry")
        #expect(requests[1].header("Idempotency-Key") == requests[0].header("Idempotency-Key"))
        #expect(Set(jsonObject(requests[1].body).keys) == ["events"])
        #expect(jsonObject(requests[2].body)["subscription_id"] as? String == "apns-token-2")
        api.stop()
        await sdk.close()
    }

    final class Custom {}

    /// Payloads a goal cannot carry, with the field and the words the refusal names.
    enum BadPayload: CaseIterable, Sendable {
        case date, customClass, nestedObject, list, notANumber

        var payload: [String: Any?] {
            switch self {
            case .date: ["when": Date()]
            case .customClass: ["owner": Custom()]
            case .nestedObject: ["nested": ["a": 1] as [String: Any?]]
            case .list: ["list": [1, 2]]
            case .notANumber: ["nan": Double.nan]
            }
        }

        var field: String { "payload." + (payload.keys.first ?? "") }

        var words: String {
            switch self {
            case .date: "Date"
            case .customClass: "Custom"
            case .nestedObject, .list: "object or a list"
            case .notANumber: "Double"
            }
        }
    }

    @Test(arguments: BadPayload.allCases)
    func payloadsThatAreNotScalarsAreRefusedAndNothingIsSent(bad: BadPayload) async throws {
        let api = try LoopbackAPI()
        let sdk = try TestSDK(modules: Self.modules)
        sdk.configure(apiUrl: api.apiUrl)
        let refused = sdk.tern.target.sendTarget(sid: "s", eventName: "bad", payload: bad.payload)
        guard case .failed(let reason) = refused.state else {
            Issue.record("a bad payload was queued")
            return
        }
        #expect(reason.contains(bad.words), "\(reason)")
        let event = try #require(await sdk.events.first("mobileRequestDataIsNil"))
        #expect(event.isError)
        #expect(event.field == bad.field)
        #expect(event.reason == reason)

        sdk.tern.target.sendTarget(sid: "s", eventName: "sentinel")
        _ = try #require(await sdk.events.first("mobileEventRequestSuccessful"))
        #expect(await Self.goals(api).map { $0["event_name"] as? String } == ["sentinel"])
        api.stop()
        await sdk.close()
    }

    @Test func emptyOrReservedNamesAndIncompleteSubscriptionsAreRefusedBeforeQueueing() async throws {
        let api = try LoopbackAPI()
        let sdk = try TestSDK(modules: Self.modules)
        sdk.configure(apiUrl: api.apiUrl, jwt: "jwt")
        let target = sdk.tern.target
        #expect(target.sendTarget(sid: "s", eventName: "").state != .queued)
        #expect(target.sendTarget(sid: "s", eventName: "  ").state != .queued)
        #expect(target.sendTarget(sid: "s", eventName: "$subscribed").state != .queued)
        #expect(target.sendTarget(sid: "", eventName: "e").state != .queued)
        #expect(target.sendTarget(sid: String(repeating: "s", count: 257), eventName: "e").state != .queued)
        #expect(
            target.sendTarget(sid: "s", clientID: String(repeating: "c", count: 257), eventName: "e").state != .queued)
        #expect(target.sendTarget(sid: "s", eventName: "e", matching: ["at": Date()]).state != .queued)
        #expect(target.sendTarget(sid: "s", eventName: "e", profileFields: ["at": Date()]).state != .queued)
        #expect(
            target.sendTarget(
                sid: "s", eventName: "e",
                subscription: CcDataSubscription(resourceId: 1, channel: "fax", ccData: ["a": 1])
            )
            .state != .queued)
        await sdk.settle()
        let fields = sdk.events.all.filter { $0.name == "mobileRequestDataIsNil" }.map(\.field)
        #expect(
            fields == [
                "eventName", "eventName", "eventName", "sid", "sid", "clientID", "matching.at", "profileFields.at",
                "subscription.channel",
            ])

        target.sendTarget(sid: "s", eventName: "sentinel")
        _ = try #require(await sdk.events.first("mobileEventRequestSuccessful"))
        #expect(await Self.goals(api).count == 1)
        api.stop()
        await sdk.close()
    }

    @Test func profileFieldsOrASubscriptionWithoutAJWTProviderAreRefusedWithJwtIsNil() async throws {
        let api = try LoopbackAPI()
        let sdk = try TestSDK(modules: Self.modules)
        sdk.configure(apiUrl: api.apiUrl)
        sdk.tern.target.sendTarget(sid: "s", eventName: "with-fields", profileFields: ["_fname": "Ada"])
        sdk.tern.target.sendTarget(
            sid: "s", eventName: "with-subscription", subscription: SmsSubscription(resourceId: 3, phone: "+1"))
        sdk.tern.target.sendTarget(sid: "s", eventName: "sentinel")
        _ = try #require(await sdk.events.first("mobileEventRequestSuccessful"))
        let refusals = sdk.events.all.filter { $0.name == "jwtIsNil" }
        #expect(refusals.map(\.field) == ["profileFields", "subscription"])
        #expect(refusals.allSatisfy { $0.isError && $0.function == "sendTarget" })
        #expect(refusals.first?.reason?.contains("setJWTProvider") == true)
        #expect(await Self.goals(api).map { $0["event_name"] as? String } == ["sentinel"])
        api.stop()
        await sdk.close()
    }

    /// The call returned `.queued` before the refusal: syncStates must still say how it ended.
    @Test func aGoalRefusedForWantOfAJWTEndsFailedInSyncStates() async throws {
        let api = try LoopbackAPI()
        let sdk = try TestSDK(modules: Self.modules)
        sdk.configure(apiUrl: api.apiUrl)
        let updates = await sdk.tern.syncStates()
        let refused = sdk.tern.target.sendTarget(sid: "s", eventName: "with-fields", profileFields: ["_fname": "Ada"])
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

    /// Calls return `.queued` before the SDK knows the configuration is unusable; when it lets them
    /// go (`configIsNotSet`), syncStates must still say how they ended.
    @Test func requestsLetGoUnderAnUnusableConfigurationEndFailedInSyncStates() async throws {
        let sdk = try TestSDK(modules: Self.modules)
        let updates = await sdk.tern.syncStates()
        sdk.tern.initialization(configuration: TernConfiguration.Builder(apiUrl: "").build())
        let ids = [
            sdk.tern.push.subscription.subscribe().id,
            sdk.tern.target.sendTarget(sid: "s", eventName: "e").id,
        ]
        let ended = await firstSyncStates(of: ids, in: updates)
        #expect(ended.count == 2, "every request reported: \(ended)")
        for (_, state) in ended {
            guard case .failed(let reason) = state else {
                Issue.record("expected .failed, got \(state)")
                continue
            }
            #expect(reason.contains("configIsNotSet"))
        }
        await sdk.close()
    }

    @Test func aRefusalFromTheServerIsAnErrorEventWithItsReason() async throws {
        let api = try LoopbackAPI()
        await api.answer(.envelopeError(400, "events[0].sid \"nope\" is not a pixel of project 1"))
        let sdk = try TestSDK(modules: Self.modules)
        sdk.configure(apiUrl: api.apiUrl)
        sdk.tern.target.sendTarget(sid: "nope", eventName: "e")
        let failure = try #require(await sdk.events.first("mobileEventRequestFailed"))
        #expect(failure.isError && !failure.isRetry)
        #expect(failure.httpCode == 400)
        #expect(failure.errorText?.contains("is not a pixel") == true)
        #expect(await sdk.tern.outboxStatistics()?.pending[.events] ?? 0 == 0)
        api.stop()
        await sdk.close()
    }
}
