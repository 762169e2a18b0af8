import Foundation
import TernHTTP
import TernPush
import TernSDKTestKit
import Testing

@Suite("push.subscription.unSuspend and the sign-in / sign-out hand-over")
struct UnsuspendTests {
    /// The modules whose requests the scripted server expects (the inbox would sync for the JWT).
    static let modules = ["TernPush"]

    static let withSubscription = #"{"id":"p1","subscription":{"subscription_id":"tok-1","status":"subscribed"}}"#
    static let withoutSubscription = #"{"id":"p2"}"#

    /// A server for a subscribe and a sign-in whose user's profile has no subscription yet.
    static func signInServer() throws -> ScriptedServer {
        try ScriptedServer(
            script: [
                ScriptedServer.ok(profileJSON: withSubscription),  // subscribe
                ScriptedServer.ok(profileJSON: withoutSubscription),  // profile/authenticate
                ScriptedServer.ok(profileJSON: withoutSubscription),  // push/unsuspend: none in the user's profile
            ], fallback: ScriptedServer.ok(profileJSON: withSubscription))
    }

    @Test @MainActor func unSuspendSendsTheTokenAndAnswersItsCompletion() async throws {
        let server = try ScriptedServer(fallback: ScriptedServer.ok(profileJSON: Self.withSubscription))
        defer { server.stop() }
        let sdk = try TestSDK(modules: Self.modules)
        let events = sdk.events
        sdk.configure(apiUrl: server.apiUrl)
        sdk.tern.push.token.setToken(provider: "ios-apns", pushToken: "tok-1")
        let answer = await withCheckedContinuation { continuation in
            sdk.tern.push.subscription.unSuspend { continuation.resume(returning: $0) }
        }
        #expect(answer?.httpCode == 200)
        #expect(answer?.response?.profile?.subscription?.status == "subscribed")
        let success = try #require(await events.first(PushModuleEvents.unsuspendRequestSuccessful))
        #expect(success.message == "successful request: push/unsuspend")
        #expect(success.function == "unSuspend")
        let again = await sdk.tern.push.subscription.unSuspend()
        #expect(again?.response?.profile?.id == "p1")
        let requests = await server.requests
        #expect(requests.map(\.path) == ["/api/v1/push/unsuspend", "/api/v1/push/unsuspend"])
        let body = jsonObject(requests[0].body)
        #expect(body["provider"] as? String == "ios-apns" && body["subscription_id"] as? String == "tok-1")
        await sdk.close()
    }

    @Test @MainActor func unSuspendIsSentOnceAndAServerErrorReachesTheCompletion() async throws {
        let server = try ScriptedServer(fallback: ScriptedServer.failure(503, "maintenance"))
        defer { server.stop() }
        let sdk = try TestSDK(modules: Self.modules)
        let events = sdk.events
        sdk.configure(apiUrl: server.apiUrl)
        sdk.tern.push.token.setToken(provider: "ios-apns", pushToken: "tok-1")
        let answer = await sdk.tern.push.subscription.unSuspend()
        #expect(answer?.httpCode == 503)
        let failed = try #require(await events.first(PushModuleEvents.unsuspendRequestFailed))
        #expect(failed is ErrorEvent && !(failed is RetryEvent))
        #expect(failed.value?["error_text"] as? String == "maintenance")
        #expect(await server.requests.count == 1)
        await sdk.close()
    }

    @Test @MainActor func statusChangesAreRetriedOn5xxAndNotOn4xx() async throws {
        let server = try ScriptedServer(
            script: [ScriptedServer.failure(503, "busy"), ScriptedServer.ok(), ScriptedServer.failure(400, "bad cat")])
        defer { server.stop() }
        let sdk = try TestSDK(modules: Self.modules)
        let events = sdk.events
        sdk.configure(apiUrl: server.apiUrl)
        sdk.tern.push.token.setToken(provider: "ios-apns", pushToken: "tok-1")
        sdk.tern.push.subscription.subscribe()
        sdk.tern.push.subscription.suspend()
        let retry = try #require(await events.first(PushModuleEvents.pushSubscribeRequestFailed))
        #expect(retry is RetryEvent)
        #expect(await events.first(PushModuleEvents.pushSubscribeRequestSuccessful) != nil)
        let refused = try #require(await events.first(PushModuleEvents.pushSuspendRequestFailed))
        #expect(refused is ErrorEvent && !(refused is RetryEvent))
        #expect(
            await server.requests.map(\.path) == [
                "/api/v1/push/subscribe", "/api/v1/push/subscribe", "/api/v1/push/suspend",
            ])
        await sdk.close()
    }

    @Test @MainActor func signingInHandsTheTokenToTheUserAndSubscribesTheirProfile() async throws {
        let server = try Self.signInServer()
        defer { server.stop() }
        let sdk = try TestSDK(modules: Self.modules)
        let events = sdk.events
        sdk.tern.setJWTProvider(provider: FixedJWT("jwt-user"))
        sdk.configure(apiUrl: server.apiUrl)
        sdk.tern.push.token.setToken(provider: "ios-apns", pushToken: "tok-1")
        sdk.tern.push.subscription.subscribe()
        sdk.tern.authFunctions.authenticate()
        #expect(await events.first(PushModuleEvents.unsuspendRequestSuccessful)?.function == "authenticate")
        #expect(await events.count(PushModuleEvents.pushSubscribeRequestSuccessful, reaches: 2))

        // Signing out hands it back: the install's profile has its subscription, nothing more is made.
        sdk.tern.authFunctions.logOut()
        #expect(await events.count(PushModuleEvents.unsuspendRequestSuccessful, reaches: 2))
        #expect(await sdk.tern.flush(timeout: 5))
        #expect(
            await server.requests.map(\.path) == [
                "/api/v1/push/subscribe", "/api/v1/profile/authenticate", "/api/v1/push/unsuspend",
                "/api/v1/push/subscribe", "/api/v1/push/unsuspend",
            ])
        #expect(events.all(PushModuleEvents.unsuspendRequestSuccessful).last?.function == "logOut")
        await sdk.close()
    }

    /// The server ignores a status change older than the one it applied last. A status call the app
    /// makes after `authenticate()` is stamped when made; the hand-over's re-subscribe must not be
    /// newer, however late its turn comes (here: its answer a minute later by the SDK's clock).
    /// Under load, a re-subscribe stamped at its turn ran after the app's `suspend()` was stamped
    /// and before it was sent, and the server kept the device subscribed (CallOrderTests).
    @Test func theHandOversSubscribeCarriesTheHandOversTimeNotItsTurns() async throws {
        let server = try Self.signInServer()
        defer { server.stop() }
        let clock = MovableClock()
        // The held request must not time out before the test lets it go, however loaded the run.
        let sdk = try TestSDK(requestTimeout: 120, clock: clock, modules: Self.modules)
        let events = sdk.events
        sdk.tern.setJWTProvider(provider: FixedJWT("jwt-user"))
        sdk.configure(apiUrl: server.apiUrl)
        sdk.tern.push.token.setToken(provider: "ios-apns", pushToken: "tok-1")
        sdk.tern.push.subscription.subscribe()
        let subscribed = try #require(await events.first("pushSubscribeRequestSuccessful"))
        await server.hold(path: "/api/v1/push/unsuspend")
        let signedIn = Int64((clock.now().timeIntervalSince1970 * 1000).rounded())
        sdk.tern.authFunctions.authenticate()
        for _ in 0..<2000 where await !server.requests.contains(where: { $0.path == "/api/v1/push/unsuspend" }) {
            try await Task.sleep(for: .milliseconds(10))
        }
        clock.advance(60)
        await server.release()
        #expect(
            await events.first(where: { $0.name == "pushSubscribeRequestSuccessful" }, after: subscribed.index + 1)
                != nil, "\(events.names)")
        let resubscribe = try #require(await server.requests.last { $0.path == "/api/v1/push/subscribe" })
        let time = try #require(jsonObject(resubscribe.body)["time"] as? Int)
        #expect(Int64(time) >= signedIn && Int64(time) < signedIn + 30_000, "\(time - Int(signedIn)) ms after")
        await sdk.close()
    }

    @Test @MainActor func theHandOverDoesNotSubscribeWhenTheAppLastUnsubscribed() async throws {
        let server = try ScriptedServer(
            fallback: ScriptedServer.ok(profileJSON: Self.withoutSubscription))
        defer { server.stop() }
        let sdk = try TestSDK(modules: Self.modules)
        let events = sdk.events
        sdk.tern.setJWTProvider(provider: FixedJWT("jwt-user"))
        sdk.configure(apiUrl: server.apiUrl)
        sdk.tern.push.token.setToken(provider: "ios-apns", pushToken: "tok-1")
        sdk.tern.push.subscription.subscribe()
        sdk.tern.push.subscription.unsubscribe()
        sdk.tern.authFunctions.authenticate()
        #expect(await events.first(PushModuleEvents.unsuspendRequestSuccessful) != nil)
        #expect(await sdk.tern.flush(timeout: 5))
        #expect(
            await server.requests.map(\.path) == [
                "/api/v1/push/subscribe", "/api/v1/push/unsubscribe", "/api/v1/profile/authenticate",
                "/api/v1/push/unsuspend",
            ])
        await sdk.close()
    }

    @Test @MainActor func anAppOnAnRTokenAloneHasNoUserToHandOverTo() async throws {
        let server = try ScriptedServer()
        defer { server.stop() }
        let sdk = try TestSDK(modules: Self.modules)
        let events = sdk.events
        sdk.configure(apiUrl: server.apiUrl)
        sdk.tern.push.token.setToken(provider: "ios-apns", pushToken: "tok-1")
        sdk.tern.authFunctions.authenticate()
        #expect(await events.first(CoreEvents.authenticateSuccessful) != nil)
        #expect(await sdk.tern.flush(timeout: 5))
        #expect(await server.requests.map(\.path) == ["/api/v1/profile/authenticate"])
        await sdk.close()
    }
}
