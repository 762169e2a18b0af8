import Foundation
import TernHTTP
import TernPush
import TernSDKTestKit
import Testing

@testable import TernCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("The sender drains the outbox to a real server on loopback")
struct SenderTests {
    static let profileJSON = """
        {"id":"p1","status":"subscribed","is_test":false,"subscription":{"subscription_id":"tok","hash_id":"c52b28d2",\
        "provider":"ios-apns","status":"subscribed","fields":{"_os":"IOS"},"cats":[{"name":"developer_news",\
        "title":"dev_news","steady":false,"active":false}]}}
        """

    @Test @MainActor func aServerErrorIsRetriedWithTheSameKeyAndBodyUntilItSucceeds() async throws {
        let server = try ScriptedServer(
            script: [ScriptedServer.failure(500, "database is down"), .text(503, "busy")],
            fallback: ScriptedServer.ok(profileJSON: Self.profileJSON))
        defer { server.stop() }
        let sdk = try TestSDK(modules: ["TernPush"])
        let events = sdk.events
        sdk.configure(apiUrl: server.apiUrl)
        sdk.tern.enqueueForTest([Entries.ordered(1)])
        let success = await events.first(PushModuleEvents.pushSubscribeRequestSuccessful)
        let retries = events.all(PushModuleEvents.pushSubscribeRequestFailed)
        #expect(retries.count == 2)
        #expect(retries.allSatisfy { $0 is RetryEvent })
        #expect(retries.first?.value?["http_code"] as? Int == 500)
        #expect(retries.first?.value?["error"] as? Int == 500)
        #expect(retries.first?.value?["error_text"] as? String == "database is down")
        // Only http_code when the answer was not the platform's envelope.
        #expect(retries.last?.value?["http_code"] as? Int == 503)
        #expect(retries.last?.value?["error"] == nil)
        #expect(success?.value?["http_code"] as? Int == 200)
        #expect(success?.value?["error"] as? Int == 0)
        #expect(success?.value?["error_text"] as? String == "")
        let profile = success?.value?["profile"] as? ProfileData
        #expect(profile?.id == "p1")
        #expect(profile?.subscription?.hashId == "c52b28d2")
        #expect(profile?.subscription?.cats?.first?.name == "developer_news")
        let requests = await server.requests
        #expect(requests.count == 3)
        #expect(Set(requests.map { $0.header("Idempotency-Key") ?? "" }).count == 1)
        #expect(Set(requests.map(\.body)).count == 1)
        #expect(requests.allSatisfy { $0.path == "/api/v1/push/subscribe" && $0.header("X-Tern-RToken") == "rt_test" })
        #expect(requests.first?.header("Content-Type") == "application/json")
        #expect(await sdk.tern.outboxStatistics()?.pending[.ordered] == 0)
        await sdk.close()
    }

    @Test @MainActor func aRequestLeftUnansweredIsAbandonedAtTheRequestTimeoutAndSentAgain() async throws {
        let server = try ScriptedServer(fallback: ScriptedServer.ok(profileJSON: Self.profileJSON))
        defer { server.stop() }
        await server.hold()
        let sdk = try TestSDK(requestTimeout: 2, modules: ["TernPush"])
        let events = sdk.events
        sdk.configure(apiUrl: server.apiUrl)
        sdk.tern.enqueueForTest([Entries.ordered(1)])
        // The server takes each request and never answers: at the timeout the SDK gives up on it
        // and sends it again, so a second one arrives long before the 60 s FoundationNetworking
        // would wait with the request's own timeout alone.
        for _ in 0..<2000 where await server.requests.count < 2 { try await Task.sleep(for: .milliseconds(10)) }
        #expect(await server.requests.count >= 2)
        let retry = await events.first(PushModuleEvents.pushSubscribeRequestFailed, timeout: 1)
        #expect(retry is RetryEvent)
        #expect(retry?.value?["http_code"] == nil, "\(String(describing: retry?.value))")
        await server.release()
        let success = await events.first(PushModuleEvents.pushSubscribeRequestSuccessful)
        #expect(success?.value?["http_code"] as? Int == 200)
        #expect(Set(await server.requests.map { $0.header("Idempotency-Key") ?? "" }).count == 1)
        await sdk.close()
    }

    /// FoundationNetworking counts a session's timeout in whole seconds (0.5 would time out at
    /// once): the transport's sessions round up, to at least a second.
    @Test func theTransportsSessionsTakeEachTimeoutInWholeSeconds() async {
        let sessions = URLSessionTransport.Sessions(appSession: nil)
        #expect(await sessions.session(timeout: 0.5).configuration.timeoutIntervalForRequest == 1)
        #expect(await sessions.session(timeout: 2.2).configuration.timeoutIntervalForRequest == 3)
        #expect(await sessions.session(timeout: 30).configuration.timeoutIntervalForRequest == 30)
        #expect(await sessions.session(timeout: 30) === sessions.session(timeout: 30))
    }

    @Test @MainActor func retryAfterIsHonoured() async throws {
        let server = try ScriptedServer(script: [
            ScriptedServer.failure(429, "slow down", headers: [("Retry-After", "1")])
        ])
        defer { server.stop() }
        let sdk = try TestSDK(modules: ["TernPush"])
        let events = sdk.events
        sdk.configure(apiUrl: server.apiUrl)
        sdk.tern.enqueueForTest([Entries.ordered(1)])
        #expect(await events.first(PushModuleEvents.pushSubscribeRequestSuccessful) != nil)
        let retry = events.all(PushModuleEvents.pushSubscribeRequestFailed).first
        #expect(retry is RetryEvent)
        #expect((retry?.value?["retry_after"] as? Double ?? 0) >= 1)
        await sdk.close()
    }

    @Test @MainActor func aRefusedRequestIsDroppedWithAnErrorEventAndTheNextOneGoes() async throws {
        let server = try ScriptedServer(script: [
            ScriptedServer.failure(400, "category not found in resource 7")
        ])
        defer { server.stop() }
        let sdk = try TestSDK(modules: ["TernPush"])
        let events = sdk.events
        sdk.configure(apiUrl: server.apiUrl)
        sdk.tern.enqueueForTest([Entries.ordered(1), Entries.ordered(2)])
        #expect(await events.first(PushModuleEvents.pushSubscribeRequestSuccessful) != nil)
        let failures = events.all(PushModuleEvents.pushSubscribeRequestFailed)
        #expect(failures.count == 1)
        #expect(failures.first.map { type(of: $0) == ErrorEvent.self } == true)
        #expect(failures.first?.value?["http_code"] as? Int == 400)
        #expect(failures.first?.value?["error_text"] as? String == "category not found in resource 7")
        #expect(await server.requests.compactMap(Entries.number) == [1, 2])
        let statistics = await sdk.tern.outboxStatistics()
        #expect(statistics?.droppedTotal == 1 && statistics?.acknowledgedTotal == 1)
        await sdk.close()
    }

    @Test @MainActor func orderedChangesReachTheServerOneAtATimeInOrder() async throws {
        let server = try ScriptedServer(script: [ScriptedServer.failure(500, "x"), ScriptedServer.failure(502, "y")])
        defer { server.stop() }
        let sdk = try TestSDK(modules: ["TernPush"])
        let events = sdk.events
        sdk.configure(apiUrl: server.apiUrl)
        sdk.tern.enqueueForTest((0..<30).map { Entries.ordered($0) })
        #expect(await events.count(PushModuleEvents.pushSubscribeRequestSuccessful, reaches: 30, timeout: 120))
        let numbers = await server.requests.compactMap(Entries.number)
        #expect(numbers == [0, 0] + Array(0..<30))
        await sdk.close()
    }

    @Test @MainActor func eventsGoInBatchesEachExactlyOnce() async throws {
        let server = try ScriptedServer()
        defer { server.stop() }
        let sdk = try TestSDK(modules: ["TernPush"])
        sdk.configure(apiUrl: server.apiUrl)
        let ids = (0..<250).map { "m\($0)" }
        sdk.tern.enqueueForTest(ids.map(Entries.event))
        #expect(await sdk.tern.flush(timeout: 30))
        let requests = await server.requests
        #expect(requests.allSatisfy { $0.path == "/api/v1/event/push" })
        #expect(requests.allSatisfy { Entries.messageIds($0).count <= 100 })
        let sent = requests.flatMap(Entries.messageIds)
        #expect(sent.sorted() == ids.sorted())
        #expect(requests.count < 250)
        await sdk.close()
    }

    @Test @MainActor func unacknowledgedRequestsAreSentAfterARestartWithTheirKey() async throws {
        let down = try ScriptedServer(fallback: .text(503, "down"))
        let apiUrl = down.apiUrl
        let first = try TestSDK(modules: ["TernPush"])
        let events = first.events
        first.configure(apiUrl: apiUrl)
        first.tern.enqueueForTest([Entries.ordered(7), Entries.event("e1")])
        #expect(await events.first(PushModuleEvents.pushSubscribeRequestFailed) is RetryEvent)
        await first.close()
        let rows = try await first.tern.runtime.store?.pendingRows() ?? []
        #expect(rows.count == 2)
        down.stop()

        let server = try ScriptedServer()
        defer { server.stop() }
        let second = try TestSDK(directory: first.directory, modules: ["TernPush"])
        second.configure(apiUrl: server.apiUrl)
        #expect(await second.tern.flush(timeout: 30))
        let requests = await server.requests
        #expect(requests.compactMap(Entries.number) == [7])
        #expect(requests.flatMap(Entries.messageIds) == ["e1"])
        #expect(Set(requests.compactMap { $0.header("Idempotency-Key") }) == Set(rows.map(\.idempotencyKey)))
        await second.close()
    }

    @Test @MainActor func syncStatesSayPersistedThenSynced() async throws {
        let server = try ScriptedServer()
        defer { server.stop() }
        let sdk = try TestSDK(modules: ["TernPush"])
        sdk.configure(apiUrl: server.apiUrl)
        let updates = await sdk.tern.syncStates()
        let entry = Entries.ordered(1)
        sdk.tern.enqueueForTest([entry])
        var states: [SyncState] = []
        for await update in updates where update.requestId == entry.idempotencyKey {
            states.append(update.state)
            if update.state == .synced { break }
        }
        #expect(states == [.persisted, .synced])
        await sdk.close()
    }
}
