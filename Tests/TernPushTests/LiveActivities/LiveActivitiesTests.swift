import Foundation
import TernHTTP
import TernPush
import TernSDKTestKit
import Testing

@Suite("push.liveActivities sends Live Activities' tokens and ends through the outbox")
struct LiveActivitiesTests {
    static let type = "DeliveryAttributes"

    /// The requests sent to `path` once `count` of them arrived (or what came within the wait).
    static func requests(_ server: ScriptedServer, _ sdk: TestSDK, path: String, count: Int) async throws
        -> [HTTPRequest]
    {
        var sent: [HTTPRequest] = []
        for _ in 0..<200 where sent.count < count {
            _ = await sdk.tern.flush(timeout: 2)
            sent = await server.requests.filter { $0.path == path }
            if sent.count < count { try await Task.sleep(for: .milliseconds(20)) }
        }
        return sent
    }

    @Test @MainActor func anActivitysTokenGoesAsHexWithItsIdsTheDevicesTokenAndItsEnvironment() async throws {
        let server = try ScriptedServer()
        defer { server.stop() }
        let sdk = try TestSDK(modules: ["TernPush"])
        let events = sdk.events
        sdk.configure(apiUrl: server.apiUrl)
        sdk.tern.push.token.setToken(provider: "ios-apns", pushToken: "tok-1")
        sdk.tern.push.subscription.subscribe()
        let request = sdk.tern.push.liveActivities.setToken(
            Data([0xAB, 0x0C, 0xFF, 0x01]), activityId: "order-1001", activityType: Self.type)
        #expect(request.state == .queued)
        let success = try #require(await events.first(LiveActivityEvents.liveActivityTokenRequestSuccessful))
        #expect(success.function == "setToken")
        #expect(success.message == "successful request: live-activity/token")
        #expect(success.value?["http_code"] as? Int == 200)

        let requests = await server.requests
        try #require(requests.map(\.path) == ["/api/v1/push/subscribe", "/api/v1/live-activity/token"])
        let sent = requests[1]
        #expect(sent.header("Idempotency-Key") == request.id)
        #expect(sent.header("X-Tern-RToken") == "rt_test")
        let body = jsonObject(sent.body)
        #expect(body["token"] as? String == "ab0cff01")
        #expect(body["activity_id"] as? String == "order-1001")
        #expect(body["activity_type"] as? String == Self.type)
        #expect(body["provider"] as? String == "ios-apns")
        #expect(body["subscription_id"] as? String == "tok-1")
        // The APNs environment every push request carries.
        let environment = try #require(body["apns_environment"] as? String)
        #expect(environment == jsonObject(requests[0].body)["apns_environment"] as? String)
        #expect((body["time"] as? Int ?? 0) > 1_700_000_000_000)
        await sdk.close()
    }

    @Test @MainActor func aPushToStartTokenHasNoActivityId() async throws {
        let server = try ScriptedServer()
        defer { server.stop() }
        let sdk = try TestSDK(modules: ["TernPush"])
        let events = sdk.events
        sdk.configure(apiUrl: server.apiUrl)
        sdk.tern.push.token.setToken(provider: "ios-firebase", pushToken: "fcm-1")
        let request = sdk.tern.push.liveActivities.setPushToStartToken(
            Data([0x00, 0x7F, 0x80]), activityType: Self.type)
        let success = try #require(await events.first(LiveActivityEvents.liveActivityTokenRequestSuccessful))
        #expect(success.function == "setPushToStartToken")
        let sent = try #require(await server.requests.first)
        #expect(sent.path == "/api/v1/live-activity/token")
        #expect(sent.header("Idempotency-Key") == request.id)
        let body = jsonObject(sent.body)
        #expect(body["activity_id"] == nil)
        #expect(body["token"] as? String == "007f80")
        #expect(body["activity_type"] as? String == Self.type)
        #expect(body["provider"] as? String == "ios-firebase" && body["subscription_id"] as? String == "fcm-1")
        await sdk.close()
    }

    @Test @MainActor func anEndAndAPushToStartRemovalGoToLiveActivityEndInOrder() async throws {
        let server = try ScriptedServer()
        defer { server.stop() }
        let sdk = try TestSDK(modules: ["TernPush"])
        let events = sdk.events
        sdk.configure(apiUrl: server.apiUrl)
        sdk.tern.push.token.setToken(provider: "ios-apns", pushToken: "tok-1")
        let ended = sdk.tern.push.liveActivities.end(activityId: "order-1001", activityType: Self.type)
        let removed = sdk.tern.push.liveActivities.removePushToStartToken(activityType: "MatchAttributes")
        #expect(await events.count(LiveActivityEvents.liveActivityEndRequestSuccessful, reaches: 2))
        #expect(
            events.all(LiveActivityEvents.liveActivityEndRequestSuccessful).map(\.function) == [
                "end", "removePushToStartToken",
            ])
        #expect(
            events.all(LiveActivityEvents.liveActivityEndRequestSuccessful).first?.message
                == "successful request: live-activity/end")
        let requests = await server.requests
        try #require(requests.map(\.path) == ["/api/v1/live-activity/end", "/api/v1/live-activity/end"])
        #expect(requests.map { $0.header("Idempotency-Key") } == [ended.id, removed.id])
        let end = jsonObject(requests[0].body)
        #expect(end["activity_id"] as? String == "order-1001" && end["activity_type"] as? String == Self.type)
        #expect(end["subscription_id"] as? String == "tok-1" && end["provider"] as? String == "ios-apns")
        #expect(end["token"] == nil)
        let removal = jsonObject(requests[1].body)
        #expect(removal["activity_id"] == nil && removal["activity_type"] as? String == "MatchAttributes")
        #expect(removal["subscription_id"] as? String == "tok-1")
        await sdk.close()
    }

    @Test @MainActor func badIdsTypesAndTokensAreRefusedAtOnceAndNothingIsSent() async throws {
        let server = try ScriptedServer()
        defer { server.stop() }
        let sdk = try TestSDK(modules: ["TernPush"])
        let events = sdk.events
        sdk.configure(apiUrl: server.apiUrl)
        sdk.tern.push.token.setToken(provider: "ios-apns", pushToken: "tok-1")
        let api = sdk.tern.push.liveActivities
        let longest = String(repeating: "a", count: LiveActivityTokenRequest.maxNameLength)
        let tooLong = longest + "b"
        let token = Data([1, 2, 3])
        let refused: [(QueuedRequest, String)] = [
            (api.setToken(Data(), activityId: "o-1", activityType: Self.type), "the token is empty"),
            (api.setToken(token, activityId: "", activityType: Self.type), "activityId is empty"),
            (
                api.setToken(token, activityId: tooLong, activityType: Self.type),
                "activityId is longer than 128 characters (129)"
            ),
            (api.setToken(token, activityId: "o-1", activityType: ""), "activityType is empty"),
            (api.setPushToStartToken(Data(), activityType: Self.type), "the token is empty"),
            (
                api.setPushToStartToken(token, activityType: tooLong),
                "activityType is longer than 128 characters (129)"
            ),
            (api.end(activityId: "", activityType: Self.type), "activityId is empty"),
            (api.end(activityId: "o-1", activityType: tooLong), "activityType is longer than 128 characters (129)"),
            (api.removePushToStartToken(activityType: ""), "activityType is empty"),
        ]
        for (request, reason) in refused {
            #expect(request.state == .failed(reason: reason))
        }
        #expect(await events.count(LiveActivityEvents.invalidLiveActivityRequestData, reaches: refused.count))
        let errors = events.all(LiveActivityEvents.invalidLiveActivityRequestData)
        #expect(errors.allSatisfy { $0 is ErrorEvent })
        #expect(errors.map { $0.value?["reason"] as? String } == refused.map(\.1))
        #expect(errors.first?.message == "invalid live activity request data")
        #expect(errors.map(\.function).first == "setToken" && errors.map(\.function).last == "removePushToStartToken")
        #expect(await sdk.tern.flush(timeout: 10))
        #expect(await server.requests.isEmpty)

        // Names of exactly the longest length are taken.
        let taken = api.setToken(token, activityId: longest, activityType: longest)
        #expect(taken.state == .queued)
        let sent = try await Self.requests(server, sdk, path: "/api/v1/live-activity/token", count: 1)
        #expect(jsonObject(try #require(sent.first).body)["activity_id"] as? String == longest)
        await sdk.close()
    }

    @Test @MainActor func aCallMadeBeforeTheDevicesTokenWaitsForItAndGetsItSplicedIn() async throws {
        let server = try ScriptedServer()
        defer { server.stop() }
        let sdk = try TestSDK(modules: ["TernPush"])
        let events = sdk.events
        sdk.configure(apiUrl: server.apiUrl)
        sdk.tern.push.liveActivities.setToken(Data([0x0A]), activityId: "order-7", activityType: Self.type)
        sdk.tern.push.liveActivities.end(activityId: "order-6", activityType: Self.type)
        #expect(await events.first(PushModuleEvents.pushTokenUpdateAwait) != nil)
        #expect(await server.requests.isEmpty)
        sdk.tern.push.token.setToken(provider: "ios-apns", pushToken: Data([0xde, 0xad, 0xbe, 0xef]))
        #expect(await events.first(LiveActivityEvents.liveActivityEndRequestSuccessful) != nil)
        let requests = await server.requests
        try #require(requests.map(\.path) == ["/api/v1/live-activity/token", "/api/v1/live-activity/end"])
        for request in requests {
            let body = jsonObject(request.body)
            #expect(body["subscription_id"] as? String == "deadbeef")
            #expect(body["provider"] as? String == "ios-apns")
        }
        #expect(jsonObject(requests[0].body)["token"] as? String == "0a")
        #expect(jsonObject(requests[0].body)["activity_id"] as? String == "order-7")
        await sdk.close()
    }

    @Test @MainActor func queuedCallsSurviveARestartAndAreSentOnceWithTheirKeys() async throws {
        let server = try ScriptedServer(script: [ScriptedServer.failure(503, "try later")])
        defer { server.stop() }
        let sdk = try TestSDK(modules: ["TernPush"])
        sdk.configure(apiUrl: server.apiUrl)
        // No device token yet: the calls wait in the outbox, on disk.
        let token = sdk.tern.push.liveActivities.setToken(
            Data([0xBE, 0xEF]), activityId: "order-9", activityType: Self.type)
        let start = sdk.tern.push.liveActivities.setPushToStartToken(Data([0x42]), activityType: Self.type)
        await sdk.settle()
        #expect(await sdk.tern.outboxStatistics()?.pending[.ordered] == 2)
        await sdk.close()
        #expect(await server.requests.isEmpty)

        let again = try TestSDK(directory: sdk.directory, modules: ["TernPush"])
        let events = again.events
        again.configure(apiUrl: server.apiUrl)
        again.tern.push.token.setToken(provider: "ios-apns", pushToken: "tok-2")
        #expect(await events.count(LiveActivityEvents.liveActivityTokenRequestSuccessful, reaches: 2))
        // The first attempt was answered 503: retried under the same key.
        #expect(events.all(LiveActivityEvents.liveActivityTokenRequestFailed).first is RetryEvent)
        let requests = await server.requests
        #expect(requests.map { $0.header("Idempotency-Key") } == [token.id, token.id, start.id])
        let bodies = requests.map { jsonObject($0.body) }
        #expect(bodies.allSatisfy { $0["subscription_id"] as? String == "tok-2" })
        #expect(bodies.map { $0["token"] as? String } == ["beef", "beef", "42"])
        #expect(bodies.map { $0["activity_id"] as? String } == ["order-9", "order-9", nil])
        await again.close()
    }

    @Test @MainActor func aRefusalIsAnErrorAndIsNotRetried() async throws {
        let server = try ScriptedServer(fallback: ScriptedServer.failure(404, "no subscription for this device"))
        defer { server.stop() }
        let sdk = try TestSDK(modules: ["TernPush"])
        let events = sdk.events
        sdk.configure(apiUrl: server.apiUrl)
        sdk.tern.push.token.setToken(provider: "ios-apns", pushToken: "tok-1")
        sdk.tern.push.liveActivities.end(activityId: "order-1", activityType: Self.type)
        let failed = try #require(await events.first(LiveActivityEvents.liveActivityEndRequestFailed))
        #expect(failed is ErrorEvent && !(failed is RetryEvent))
        #expect(failed.value?["http_code"] as? Int == 404)
        #expect(failed.value?["error_text"] as? String == "no subscription for this device")
        #expect(await sdk.tern.flush(timeout: 10))
        #expect(await server.requests.count == 1)
        await sdk.close()
    }
}
