import Foundation
import TernHTTP
import TernPush
import TernSDKTestKit
import Testing

@Suite("push.token keeps the device's token and moves the subscription with it")
struct TokenTests {
    @Test @MainActor func anUnknownProviderOrAnEmptyTokenIsRefused() async throws {
        let sdk = try TestSDK(modules: ["TernPush"])
        let events = sdk.events
        sdk.configure(apiUrl: "http://127.0.0.1:9/api/v1")
        sdk.tern.push.token.setToken(provider: "android-fcm", pushToken: "x")
        sdk.tern.push.token.setToken(provider: "ios-apns", pushToken: "")
        sdk.tern.push.token.setToken(provider: "ios-apns", pushToken: 42)
        #expect(await events.first(PushModuleEvents.invalidPushProvider)?.message == "invalid provider.")
        #expect(await events.count(PushModuleEvents.pushTokenIsNil, reaches: 2))
        let token = await withCheckedContinuation { continuation in
            sdk.tern.push.token.getToken { continuation.resume(returning: $0) }
        }
        #expect(token == nil)
        await sdk.close()
    }

    @Test @MainActor func getTokenAnswersWithTheSavedTokenOnTheMainQueue() async throws {
        let sdk = try TestSDK(modules: ["TernPush"])
        let events = sdk.events
        sdk.configure(apiUrl: "http://127.0.0.1:9/api/v1")
        sdk.tern.push.token.setToken(provider: "ios-huawei", pushToken: "hms-1")
        let provider = await events.first(PushModuleEvents.pushProviderSet)
        #expect(provider?.message == "push provider set: ios-huawei")
        let (token, onMain) = await withCheckedContinuation { continuation in
            sdk.tern.push.token.getToken { continuation.resume(returning: ($0, DispatchQueue.isMainQueue)) }
        }
        #expect(token == TokenData(provider: "ios-huawei", token: "hms-1"))
        #expect(onMain)
        await sdk.close()
        // The token survives a restart.
        let again = try TestSDK(directory: sdk.directory, modules: ["TernPush"])
        again.configure(apiUrl: "http://127.0.0.1:9/api/v1")
        let saved = await withCheckedContinuation { continuation in
            again.tern.push.token.getToken { continuation.resume(returning: $0) }
        }
        #expect(saved == TokenData(provider: "ios-huawei", token: "hms-1"))
        await again.close()
    }

    @Test @MainActor func aNewTokenMovesTheSubscriptionWithPushUpdate() async throws {
        let server = try ScriptedServer()
        defer { server.stop() }
        let sdk = try TestSDK(modules: ["TernPush"])
        let events = sdk.events
        sdk.configure(apiUrl: server.apiUrl)
        sdk.tern.push.token.setToken(provider: "ios-apns", pushToken: "tok-1")
        sdk.tern.push.subscription.subscribe()
        sdk.tern.push.token.setToken(provider: "ios-apns", pushToken: "tok-1")
        sdk.tern.push.token.setToken(provider: "ios-firebase", pushToken: "fcm-2")
        #expect(await events.first(PushModuleEvents.tokenUpdateRequestSuccessful) != nil)
        let requests = await server.requests
        // `#require`: without the update there is nothing to read (an index past the end would end
        // the whole test run).
        try #require(requests.map(\.path) == ["/api/v1/push/subscribe", "/api/v1/push/update"])
        let update = jsonObject(requests[1].body)
        #expect(update["old_provider"] as? String == "ios-apns" && update["old_subscription_id"] as? String == "tok-1")
        #expect(update["provider"] as? String == "ios-firebase" && update["subscription_id"] as? String == "fcm-2")
        await sdk.close()
    }

    @Test @MainActor func statusQueriesAnswerTheirCompletion() async throws {
        let server = try ScriptedServer(
            script: [ScriptedServer.ok(profileJSON: #"{"id":"p1","subscription":{"status":"suspended"}}"#)],
            fallback: ScriptedServer.failure(404, "no profile for this token"))
        defer { server.stop() }
        let sdk = try TestSDK(modules: ["TernPush"])
        let events = sdk.events
        sdk.configure(apiUrl: server.apiUrl)
        sdk.tern.push.token.setToken(provider: "ios-apns", pushToken: "tok-1")
        let latest = await withCheckedContinuation { continuation in
            sdk.tern.push.subscription.latest { continuation.resume(returning: $0) }
        }
        #expect(latest?.httpCode == 200)
        #expect(latest?.response?.profile?.subscription?.status == "suspended")
        let current = await withCheckedContinuation { continuation in
            sdk.tern.push.subscription.current { continuation.resume(returning: $0) }
        }
        #expect(current?.httpCode == 404)
        #expect(current?.response?.errorText == "no profile for this token")
        #expect(await events.first(PushModuleEvents.pushStatusRequestFailed) is ErrorEvent)
        let bodies = await server.requests.map { jsonObject($0.body) }
        #expect(bodies.map { $0["mode"] as? String } == ["latest", "current"])
        #expect(bodies.allSatisfy { $0["subscription_id"] as? String == "tok-1" })
        await sdk.close()
    }
}
