import Foundation
import TernHTTP
import TernPush
import TernSDKTestKit
import Testing

@testable import TernCore

@Suite("Consent stops collection and survives restarts; clear forgets everything")
struct ConsentAndClearTests {
    @Test @MainActor func aSavedOptOutHoldsAcrossARestartUntilConsentIsGiven() async throws {
        let server = try ScriptedServer()
        defer { server.stop() }
        let first = try TestSDK(modules: ["TernPush"])
        let events = first.events
        first.configure(apiUrl: server.apiUrl)
        first.tern.setCollectionEnabled(false)
        first.tern.enqueueForTest([Entries.ordered(1)])
        let refused = await events.first(CoreEvents.collectionDisabled)
        #expect(refused is ErrorEvent)
        #expect(refused?.function == "subscribe")
        #expect(await first.tern.isCollectionEnabled == false)
        await first.close()

        // The configuration says collect (the default), but the saved opt-out wins.
        let second = try TestSDK(directory: first.directory, modules: ["TernPush"])
        let later = second.events
        second.configure(apiUrl: server.apiUrl)
        second.tern.enqueueForTest([Entries.ordered(2)])
        #expect(await later.first(CoreEvents.collectionDisabled) != nil)
        #expect(await second.tern.isCollectionEnabled == false)
        second.tern.setCollectionEnabled(true)
        second.tern.enqueueForTest([Entries.ordered(3)])
        #expect(await later.first(PushModuleEvents.pushSubscribeRequestSuccessful) != nil)
        #expect(await server.requests.compactMap(Entries.number) == [3])
        await second.close()
    }

    @Test @MainActor func anOptOutBeforeInitializationWinsOverAnEarlierRunsConsent() async throws {
        let server = try ScriptedServer()
        defer { server.stop() }
        let first = try TestSDK(modules: ["TernPush"])
        first.configure(apiUrl: server.apiUrl)
        first.tern.setCollectionEnabled(true)
        #expect(await first.tern.isCollectionEnabled)
        await first.close()

        // The user opts out before the app initializes the SDK: there is no store yet.
        let second = try TestSDK(directory: first.directory, modules: ["TernPush"])
        let events = second.events
        second.tern.setCollectionEnabled(false)
        second.configure(apiUrl: server.apiUrl)
        second.tern.enqueueForTest([Entries.ordered(1)])
        #expect(await events.first(CoreEvents.collectionDisabled) != nil)
        #expect(await second.tern.isCollectionEnabled == false)
        await second.close()

        // And the opt-out was saved: a third run without any call still does not collect.
        let third = try TestSDK(directory: first.directory, modules: ["TernPush"])
        third.configure(apiUrl: server.apiUrl)
        #expect(await third.tern.isCollectionEnabled == false)
        await third.close()
        #expect(await server.requests.isEmpty)
    }

    @Test @MainActor func aConfigurationWithCollectionOffPausesUntilConsent() async throws {
        let server = try ScriptedServer()
        defer { server.stop() }
        let sdk = try TestSDK(modules: ["TernPush"])
        let events = sdk.events
        sdk.tern.setAppGroup(groupName: "group.test")
        sdk.tern.initialization(
            configuration: TernConfiguration.Builder(apiUrl: server.apiUrl).setRToken("rt").setCollectionEnabled(false)
                .build())
        sdk.tern.enqueueForTest([Entries.ordered(1)])
        #expect(await events.first(CoreEvents.collectionDisabled) != nil)
        sdk.tern.setCollectionEnabled(true)
        sdk.tern.enqueueForTest([Entries.ordered(2)])
        #expect(await events.first(PushModuleEvents.pushSubscribeRequestSuccessful) != nil)
        #expect(await server.requests.compactMap(Entries.number) == [2])
        await sdk.close()
    }

    @Test @MainActor func clearDeletesTheOutboxAndSettingsAndCancelsRetries() async throws {
        let server = try ScriptedServer(fallback: .text(503, "down"))
        defer { server.stop() }
        let sdk = try TestSDK(modules: ["TernPush"])
        let events = sdk.events
        sdk.configure(apiUrl: server.apiUrl)
        sdk.tern.core.perform("setToken") { ready in
            try? await ready.setToken(TokenData(provider: "ios-apns", token: "t"))
        }
        sdk.tern.enqueueForTest([Entries.ordered(1), Entries.event("e1")])
        #expect(await events.first(PushModuleEvents.pushSubscribeRequestFailed) is RetryEvent)
        sdk.tern.setCollectionEnabled(false)
        await withCheckedContinuation { continuation in
            sdk.tern.clear { continuation.resume() }
        }
        #expect(events.all(CoreEvents.sdkCleared).count == 1)
        let statistics = try #require(await sdk.tern.outboxStatistics())
        #expect(statistics.pending.values.reduce(0, +) == 0)
        #expect(statistics.enqueuedTotal == 0)
        let token = await withCheckedContinuation { continuation in
            sdk.tern.core.perform("getToken") { ready in continuation.resume(returning: await ready.token()) }
        }
        #expect(token == nil)
        // Clearing never turns collection back on.
        #expect(await sdk.tern.isCollectionEnabled == false)
        await sdk.close()
    }

    @Test @MainActor func sessionsAreReportedWithTheAutomaticFields() async throws {
        let lifecycle = ManualAppLifecycle()
        let sdk = try TestSDK(lifecycle: lifecycle, modules: ["TernPush"])
        sdk.configure(apiUrl: "http://127.0.0.1:9/api/v1")
        let before = await withCheckedContinuation { continuation in
            sdk.tern.core.perform("fields") { ready in continuation.resume(returning: await ready.automaticFields()) }
        }
        #expect(before["_session_count"] == 0)
        await lifecycle.set(.foreground)
        await lifecycle.set(.background)
        await lifecycle.set(.foreground)
        var fields: [String: JSONValue] = [:]
        for _ in 0..<200 {
            fields = await withCheckedContinuation { continuation in
                sdk.tern.core.perform("fields") { ready in continuation.resume(returning: await ready.automaticFields())
                }
            }
            if fields["_first_session"] != nil { break }
            try await Task.sleep(nanoseconds: 10_000_000)
        }
        #expect(fields["_session_count"] == 1)
        #expect(fields["_first_session"] != nil && fields["_last_session"] != nil)
        #expect(fields["_os"] == "IOS" && fields["_device_model"] == "iPhone14,7")
        await sdk.close()
    }
}
