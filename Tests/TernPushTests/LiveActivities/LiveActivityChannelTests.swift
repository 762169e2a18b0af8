import Foundation
import TernHTTP
import TernPush
import TernSDKTestKit
import Testing

@Suite("push.liveActivities.channelId(named:) reads a broadcast channel's id from the server")
struct LiveActivityChannelTests {
    static let path = "/api/v1/live-activity/channel"

    /// 200 with the channel's answer, as the server sends it.
    static func answer(name: String, channelId: String) -> HTTPResponse {
        .json(
            200,
            Data(
                "{\"name\":\"\(name)\",\"channel_id\":\"\(channelId)\",\"apns_environment\":\"production\"}".utf8))
    }

    @Test @MainActor func theDevicesTokenAndTheNameGoToLiveActivityChannelAndTheIdComesBack() async throws {
        let server = try ScriptedServer(fallback: Self.answer(name: "match-4471", channelId: "dHN0LXNyY2gtY2hubA=="))
        defer { server.stop() }
        let sdk = try TestSDK(modules: ["TernPush"])
        let events = sdk.events
        sdk.configure(apiUrl: server.apiUrl)
        sdk.tern.push.token.setToken(provider: "ios-apns", pushToken: "tok-1")

        let id = try await sdk.tern.push.liveActivities.channelId(named: "match-4471")
        #expect(id == "dHN0LXNyY2gtY2hubA==")
        let requests = await server.requests
        try #require(requests.map(\.path) == [Self.path])
        let sent = requests[0]
        #expect(sent.method == "POST")
        // A device's read: the rToken is enough, no JWT is needed.
        #expect(sent.header("X-Tern-RToken") == "rt_test")
        #expect(sent.header("Authorization") == nil)
        let body = jsonObject(sent.body)
        #expect(Set(body.keys) == ["provider", "subscription_id", "name"])
        #expect(body["provider"] as? String == "ios-apns")
        #expect(body["subscription_id"] as? String == "tok-1")
        #expect(body["name"] as? String == "match-4471")
        let success = try #require(await events.first(LiveActivityEvents.liveActivityChannelRequestSuccessful))
        #expect(success.function == "channelId")
        #expect(success.message == "successful request: live-activity/channel")

        // A name's id does not change: asked again, it comes from memory.
        #expect(try await sdk.tern.push.liveActivities.channelId(named: "match-4471") == id)
        #expect(await server.requests.count == 1)
        await sdk.close()
    }

    @Test @MainActor func a404SaysTheProjectHasNoChannelOfThatNameAndIsNotKept() async throws {
        let refusal = "no Live Activity channel \"match-9\" in production"
        let server = try ScriptedServer(
            script: [ScriptedServer.failure(404, refusal)],
            fallback: Self.answer(name: "match-9", channelId: "bWF0Y2gtOQ=="))
        defer { server.stop() }
        let sdk = try TestSDK(modules: ["TernPush"])
        let events = sdk.events
        sdk.configure(apiUrl: server.apiUrl)
        sdk.tern.push.token.setToken(provider: "ios-apns", pushToken: "tok-1")
        let liveActivities = sdk.tern.push.liveActivities

        let expected = LiveActivityChannelError.channelNotFound(name: "match-9", reason: refusal)
        await #expect(throws: expected) { try await liveActivities.channelId(named: "match-9") }
        #expect(expected.description.contains("the project has no Live Activity channel named \"match-9\""))
        let failed = try #require(await events.first(LiveActivityEvents.liveActivityChannelRequestFailed))
        #expect(failed is ErrorEvent && !(failed is RetryEvent))
        #expect(failed.value?["http_code"] as? Int == 404)
        #expect(failed.value?["error_text"] as? String == refusal)
        #expect(await server.requests.count == 1)

        // Once the operator made the channel, the next call asks again and gets it.
        #expect(try await liveActivities.channelId(named: "match-9") == "bWF0Y2gtOQ==")
        #expect(await server.requests.map(\.path) == [Self.path, Self.path])
        await sdk.close()
    }

    @Test @MainActor func anotherRefusalKeepsItsStatusAndText() async throws {
        let server = try ScriptedServer(fallback: ScriptedServer.failure(400, "name has a character the API refuses"))
        defer { server.stop() }
        let sdk = try TestSDK(modules: ["TernPush"])
        sdk.configure(apiUrl: server.apiUrl)
        sdk.tern.push.token.setToken(provider: "ios-apns", pushToken: "tok-1")
        let liveActivities = sdk.tern.push.liveActivities
        await #expect(
            throws: LiveActivityChannelError.requestFailed(
                httpCode: 400, reason: "name has a character the API refuses")
        ) { try await liveActivities.channelId(named: "match-1") }
        await sdk.close()
    }

    @Test @MainActor func badNamesAreRefusedBeforeAnyRequest() async throws {
        let server = try ScriptedServer(fallback: Self.answer(name: "x", channelId: "eA=="))
        defer { server.stop() }
        let sdk = try TestSDK(modules: ["TernPush"])
        let events = sdk.events
        sdk.configure(apiUrl: server.apiUrl)
        sdk.tern.push.token.setToken(provider: "ios-apns", pushToken: "tok-1")
        let liveActivities = sdk.tern.push.liveActivities
        let limit = LiveActivityChannelRequest.maxNameLength
        let refused: [(String, String)] = [
            ("", "name is empty"),
            (" \n\t ", "name is empty"),
            (String(repeating: "a", count: limit + 1), "name is longer than \(limit) characters (\(limit + 1))"),
            // Counted in code points, as the server counts: 65 "é" of two scalars each are 130.
            (String(repeating: "e\u{301}", count: limit / 2 + 1), "name is longer than \(limit) characters (130)"),
            ("match\n4471", "name has a control character"),
            ("match\u{0}4471", "name has a control character"),
        ]
        for (name, reason) in refused {
            await #expect(throws: LiveActivityChannelError.invalidName(reason: reason)) {
                try await liveActivities.channelId(named: name)
            }
        }
        #expect(await events.count(LiveActivityEvents.invalidLiveActivityRequestData, reaches: refused.count))
        #expect(
            events.all(LiveActivityEvents.invalidLiveActivityRequestData).map { $0.value?["reason"] as? String }
                == refused.map(\.1))
        #expect(await sdk.tern.flush(timeout: 10))
        #expect(await server.requests.isEmpty)

        // A name of exactly the longest length is taken.
        _ = try await liveActivities.channelId(named: String(repeating: "a", count: limit))
        #expect(await server.requests.map(\.path) == [Self.path])
        await sdk.close()
    }

    @Test @MainActor func withoutThePushTokenItThrowsNoPushTokenAndSendsNothing() async throws {
        let server = try ScriptedServer(fallback: Self.answer(name: "match-1", channelId: "eA=="))
        defer { server.stop() }
        let sdk = try TestSDK(modules: ["TernPush"])
        let events = sdk.events
        sdk.configure(apiUrl: server.apiUrl)
        let liveActivities = sdk.tern.push.liveActivities
        await #expect(throws: LiveActivityChannelError.noPushToken) {
            try await liveActivities.channelId(named: "match-1")
        }
        let failed = try #require(await events.first(LiveActivityEvents.liveActivityChannelRequestFailed))
        #expect(failed.function == "channelId")
        #expect(failed.value?["reason"] as? String == LiveActivityChannelError.noPushToken.description)
        #expect(await server.requests.isEmpty)

        // The token set just before the call is used: calls run in order.
        sdk.tern.push.token.setToken(provider: "ios-apns", pushToken: "tok-2")
        #expect(try await liveActivities.channelId(named: "match-1") == "eA==")
        #expect(jsonObject(try #require(await server.requests.first).body)["subscription_id"] as? String == "tok-2")
        await sdk.close()
    }
}
