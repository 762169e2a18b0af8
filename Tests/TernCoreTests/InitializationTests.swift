import Foundation
import TernHTTP
import TernSDKTestKit
import Testing

@testable import TernCore

@Suite("Initialization: ordering, waiting, module reports")
struct InitializationTests {
    /// A module whose initialization the test controls.
    struct ScriptedModule: TernModule {
        enum Behaviour: Sendable {
            case succeed
            case fail(String)
            case hang
        }

        let moduleName: String
        let behaviour: Behaviour

        func initialize(_ core: ReadyCore) async throws {
            switch behaviour {
            case .succeed: return
            case .fail(let reason): throw TernError(reason)
            case .hang: try await Task.sleep(nanoseconds: 600 * 1_000_000_000)
            }
        }

        func clear(_ core: ReadyCore) async {}
    }

    /// Records what the commands saw, in order.
    actor Trace {
        var entries: [String] = []
        func add(_ entry: String) { entries.append(entry) }
    }

    @Test @MainActor func callsBeforeInitializationWaitThenRunInOrder() async throws {
        let sdk = try TestSDK()
        let events = sdk.events
        let trace = Trace()
        for index in 0..<50 {
            sdk.tern.core.perform("call\(index)") { ready in
                await trace.add("\(index):\(ready.configuration.apiUrl)")
            }
        }
        let waiting = await events.first(CoreEvents.initAwait)
        #expect(waiting?.function == "call0")
        #expect(await trace.entries.isEmpty)
        sdk.configure(apiUrl: "http://127.0.0.1:9/api/v1")
        #expect(await events.first(CoreEvents.configSet) != nil)
        await sdk.tern.flushCommands()
        #expect(await trace.entries == (0..<50).map { "\($0):http://127.0.0.1:9/api/v1" })
        #expect(events.all(CoreEvents.initAwait).count == 1)
        #expect(events.allOnMainQueue)
        await sdk.close()
    }

    @Test @MainActor func anUnusableConfigurationFailsWaitingCallsWithConfigIsNotSet() async throws {
        let sdk = try TestSDK()
        let events = sdk.events
        let trace = Trace()
        sdk.tern.core.perform("subscribe") { _ in await trace.add("ran") }
        sdk.tern.initialization(configuration: TernConfiguration.Builder(apiUrl: "").build())
        let error = await events.first(CoreEvents.configIsNotSet)
        #expect(error is ErrorEvent)
        #expect(error?.function == "subscribe")
        #expect(events.all(CoreEvents.invalidUrlValue).count == 1)
        #expect(await trace.entries.isEmpty)
        // A later, good configuration makes later calls work.
        sdk.configure(apiUrl: "http://127.0.0.1:9/api/v1")
        sdk.tern.core.perform("later") { _ in await trace.add("later") }
        await sdk.tern.flushCommands()
        #expect(await trace.entries == ["later"])
        await sdk.close()
    }

    @Test @MainActor func eachModuleReportsHowItsInitializationEnded() async throws {
        let sdk = try TestSDK(moduleInitTimeout: 0.3)
        sdk.tern.core.register(ScriptedModule(moduleName: "good", behaviour: .succeed))
        sdk.tern.core.register(ScriptedModule(moduleName: "broken", behaviour: .fail("no keychain access")))
        sdk.tern.core.register(ScriptedModule(moduleName: "slow", behaviour: .hang))
        let statuses = await withCheckedContinuation { continuation in
            sdk.tern.initialization(
                configuration: TernConfiguration.Builder(apiUrl: "http://127.0.0.1:9/api/v1").build()
            ) { continuation.resume(returning: $0) }
        }
        // This test process links every SDK module, and initialization brings all of them up: look at
        // the core and this test's own.
        let own = statuses.filter { ["core", "good", "broken", "slow"].contains($0.moduleName) }
        #expect(own.map(\.moduleName) == ["core", "good", "broken", "slow"])
        #expect(own.map(\.initStatus) == [.success, .success, .error, .timeout])
        #expect(own[2].reason == "no keychain access")
        await sdk.close()
    }

    /// Holds the first initialization of a module until released; later ones pass.
    actor Gate {
        var calls = 0
        var entered = false
        var waiters: [CheckedContinuation<Void, Never>] = []

        func enter() async throws {
            calls += 1
            guard calls == 1 else { return }
            entered = true
            for waiter in waiters { waiter.resume() }
            waiters = []
            try await Task.sleep(nanoseconds: 600 * 1_000_000_000)
        }

        /// Returns once the first initialization is inside the module.
        func waitForEntry() async {
            guard !entered else { return }
            await withCheckedContinuation { waiters.append($0) }
        }
    }

    struct GatedModule: TernModule {
        let gate: Gate
        var moduleName: String { "gated" }
        func initialize(_ core: ReadyCore) async throws { try await gate.enter() }
        func clear(_ core: ReadyCore) async {}
    }

    @Test @MainActor func aNewInitializationCancelsTheUnfinishedOne() async throws {
        let sdk = try TestSDK(moduleInitTimeout: 600)
        let gate = Gate()
        sdk.tern.core.register(GatedModule(gate: gate))
        let config = TernConfiguration.Builder(apiUrl: "http://127.0.0.1:9/api/v1").build()
        let stream = AsyncStream<[ModuleInitStatus]>.makeStream()
        sdk.tern.initialization(configuration: config) { stream.continuation.yield($0) }
        await gate.waitForEntry()
        sdk.tern.initialization(configuration: config) { stream.continuation.yield($0) }
        var iterator = stream.stream.makeAsyncIterator()
        let own = { (statuses: [ModuleInitStatus]?) in
            statuses?.filter { ["core", "gated"].contains($0.moduleName) }.map(\.initStatus)
        }
        let first = await iterator.next()
        let second = await iterator.next()
        #expect(own(first) == [.success, .cancelled])
        #expect(own(second) == [.success, .success])
        await sdk.close()
    }

    @Test @MainActor func withoutAnAppGroupTheSDKSaysSo() async throws {
        let sdk = try TestSDK()
        let events = sdk.events
        sdk.configure(apiUrl: "http://127.0.0.1:9/api/v1", appGroup: nil)
        let event = await events.first(CoreEvents.appGroupIsNotSet)
        #expect(event is ErrorEvent)
        #expect(await events.first(CoreEvents.configSet) != nil)
        await sdk.close()
    }
}

@Suite("The one-line managed initialization")
struct ManagedInitializationTests {
    @Test @MainActor func oneCallSetsEverythingUpAndRequestsFlow() async throws {
        let server = try ScriptedServer()
        defer { server.stop() }
        let sdk = try TestSDK()
        let events = sdk.events
        let statuses = await withCheckedContinuation { continuation in
            sdk.tern.initialize(apiUrl: server.apiUrl, rToken: "rt_managed", appGroup: "group.managed") {
                continuation.resume(returning: $0)
            }
        }
        #expect(statuses.first == ModuleInitStatus(moduleName: "core", initStatus: .success))
        #expect(await events.first(CoreEvents.backgroundTaskRegister) != nil)
        #expect(events.all(CoreEvents.configSet).count == 1)
        #expect(events.all(CoreEvents.appGroupIsNotSet).isEmpty)
        sdk.tern.enqueueForTest([Entries.ordered(1)])
        #expect(await sdk.tern.flush(timeout: 30))
        #expect(await server.requests.first?.header("X-Tern-RToken") == "rt_managed")
        #expect(FileManager.default.fileExists(atPath: sdk.directory.path("group.managed/tern.sqlite")))
        await sdk.close()
    }

    @Test @MainActor func collectionCanStartPaused() async throws {
        let sdk = try TestSDK()
        sdk.tern.initialize(apiUrl: "http://127.0.0.1:9/api/v1", collectionEnabled: false, backgroundFlush: false)
        #expect(await sdk.tern.isCollectionEnabled == false)
        await sdk.close()
    }
}
