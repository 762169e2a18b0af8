import Foundation
import Synchronization
import TernHTTP
import TernPush
import TernSDKTestKit
import Testing

@testable import TernCore

/// A JWT provider whose answers the test controls; counts its calls.
final class TestJWTProvider: JWTInterface {
    private let state = Mutex<(token: String?, calls: Int)>((nil, 0))
    private let gate: DispatchSemaphore?

    init(token: String?, gate: DispatchSemaphore? = nil) {
        state.withLock { $0.token = token }
        self.gate = gate
    }

    var calls: Int { state.withLock { $0.calls } }
    func set(_ token: String?) { state.withLock { $0.token = token } }

    func getToken() -> String? {
        state.withLock { $0.calls += 1 }
        gate?.wait()
        return state.withLock { $0.token }
    }
}

@Suite("Credentials are attached at send time")
struct AuthTests {
    @Test func oneJWTFetchServesEveryConcurrentWaiter() async throws {
        let gate = DispatchSemaphore(value: 0)
        let provider = TestJWTProvider(token: "jwt-1", gate: gate)
        let auth = AuthSource()
        await auth.setProvider(provider)
        let tokens = await withTaskGroup(of: String?.self) { group in
            for _ in 0..<20 { group.addTask { await auth.jwt() } }
            while provider.calls == 0 { try? await Task.sleep(nanoseconds: 1_000_000) }
            try? await Task.sleep(nanoseconds: 50_000_000)
            gate.signal()
            var all: [String?] = []
            for await token in group { all.append(token) }
            return all
        }
        #expect(tokens.count == 20 && tokens.allSatisfy { $0 == "jwt-1" })
        #expect(provider.calls == 1)
        // A later request asks again: tokens are not cached beyond the fetch in flight.
        gate.signal()
        #expect(await auth.jwt() == "jwt-1")
        #expect(provider.calls == 2)
    }

    @Test @MainActor func requestsCarryTheJWTAndTheRToken() async throws {
        let server = try ScriptedServer()
        defer { server.stop() }
        let sdk = try TestSDK(modules: ["TernPush"])
        sdk.tern.setJWTProvider(provider: TestJWTProvider(token: "header.claims.signature"))
        sdk.configure(apiUrl: server.apiUrl)
        sdk.tern.enqueueForTest([Entries.ordered(1)])
        #expect(await sdk.tern.flush(timeout: 30))
        let request = try #require(await server.requests.first)
        #expect(request.header("Authorization") == "Bearer header.claims.signature")
        #expect(request.header("X-Tern-RToken") == "rt_test")
        await sdk.close()
    }

    @Test @MainActor func aNilJWTWithoutAnRTokenWaitsAndRetries() async throws {
        let server = try ScriptedServer()
        defer { server.stop() }
        let sdk = try TestSDK(modules: ["TernPush"])
        let events = sdk.events
        let provider = TestJWTProvider(token: nil)
        sdk.tern.setJWTProvider(provider: provider)
        sdk.configure(apiUrl: server.apiUrl, rToken: nil)
        sdk.tern.enqueueForTest([Entries.ordered(1)])
        let missing = await events.first(CoreEvents.jwtIsNil)
        #expect(missing is RetryEvent)
        #expect(await server.requests.isEmpty)
        provider.set("late.jwt.token")
        #expect(await events.first(PushModuleEvents.pushSubscribeRequestSuccessful) != nil)
        #expect(await server.requests.first?.header("Authorization") == "Bearer late.jwt.token")
        #expect(await server.requests.first?.header("X-Tern-RToken") == nil)
        await sdk.close()
    }

    @Test @MainActor func aNilJWTWithAnRTokenIsReportedAndTheRTokenIsUsed() async throws {
        let server = try ScriptedServer()
        defer { server.stop() }
        let sdk = try TestSDK(modules: ["TernPush"])
        let events = sdk.events
        sdk.tern.setJWTProvider(provider: TestJWTProvider(token: nil))
        sdk.configure(apiUrl: server.apiUrl)
        sdk.tern.enqueueForTest([Entries.ordered(1)])
        #expect(await events.first(PushModuleEvents.pushSubscribeRequestSuccessful) != nil)
        let missing = events.all(CoreEvents.jwtIsNil).first
        #expect(missing.map { type(of: $0) == ErrorEvent.self } == true)
        let request = try #require(await server.requests.first)
        #expect(request.header("Authorization") == nil && request.header("X-Tern-RToken") == "rt_test")
        await sdk.close()
    }

    @Test @MainActor func authenticateThenLogOut() async throws {
        let server = try ScriptedServer(fallback: ScriptedServer.ok(profileJSON: #"{"id":"p1"}"#))
        defer { server.stop() }
        let sdk = try TestSDK(modules: ["TernPush"])
        let events = sdk.events
        sdk.configure(apiUrl: server.apiUrl)
        sdk.tern.core.perform("setToken") { ready in
            try? await ready.setToken(TokenData(provider: "ios-apns", token: "t1"))
        }
        sdk.tern.authFunctions.logOut()
        #expect(await events.first(CoreEvents.notAuthenticatedError) is ErrorEvent)
        sdk.tern.authFunctions.authenticate()
        let success = await events.first(CoreEvents.authenticateSuccessful)
        #expect((success?.value?["profile"] as? ProfileData)?.id == "p1")
        let request = try #require(await server.requests.first)
        #expect(request.path == "/api/v1/profile/authenticate")
        let body = try JSONDecoder().decode(PushTokenRequest.self, from: request.body)
        #expect(body == PushTokenRequest(provider: "ios-apns", subscriptionId: "t1"))
        // The authenticated flag is set by the answer's completion; wait for it before logging out.
        for _ in 0..<200 {
            let authenticated = await withCheckedContinuation { continuation in
                sdk.tern.core.perform("check") { ready in continuation.resume(returning: await ready.isAuthenticated())
                }
            }
            if authenticated { break }
            try await Task.sleep(nanoseconds: 10_000_000)
        }
        sdk.tern.authFunctions.logOut()
        let logOut = await events.first(CoreEvents.userLogOut)
        #expect(logOut?.message == "User logged out. Anonymous session started")
        await sdk.close()
    }
}

@Suite("The background flush sends what is due")
struct BackgroundFlushTests {
    @Test @MainActor func registeringAndRunningTheBackgroundTask() async throws {
        let server = try ScriptedServer()
        defer { server.stop() }
        let sdk = try TestSDK(modules: ["TernPush"])
        let events = sdk.events
        sdk.tern.backgroundTasks.registerBackgroundTask()
        #expect(await events.first(CoreEvents.backgroundTaskRegister) != nil)
        sdk.configure(apiUrl: server.apiUrl)
        sdk.tern.enqueueForTest((0..<5).map { Entries.event("bg\($0)") })
        let scheduler = try #require(sdk.tern.environment.backgroundTasks as? ManualBackgroundScheduler)
        #expect(await scheduler.scheduled[BackgroundTasksAPI.identifier] != nil)
        await sdk.tern.flushCommands()
        #expect(await scheduler.runNow(identifier: BackgroundTasksAPI.identifier))
        #expect(await events.first(CoreEvents.backgroundTaskCompleted) != nil)
        #expect(await server.requests.flatMap(Entries.messageIds).sorted() == (0..<5).map { "bg\($0)" })
        await sdk.close()
    }
}
