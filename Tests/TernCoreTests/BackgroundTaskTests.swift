import Foundation
import Synchronization
import TernSDKTestKit
import Testing

@testable import TernCore

/// The system's background-task scheduler as `BGTaskScheduler` behaves: a registration per
/// identifier, each run handed over with an expiration handler to set and a completion to call.
final class FakeSystemTasks: SystemTaskPort {
    struct State {
        var registrations: [String] = []
        var launches: [String: @Sendable (SystemTaskRun) -> Void] = [:]
        var submitted: [String] = []
        var refuses = false
    }

    /// One run: what the SDK set and called.
    final class Run: Sendable {
        let expiration = Mutex<(@Sendable () -> Void)?>(nil)
        let completions = Mutex<[Bool]>([])

        var system: SystemTaskRun {
            SystemTaskRun(
                setExpiration: { handler in self.expiration.withLock { $0 = handler } },
                complete: { success in self.completions.withLock { $0.append(success) } })
        }

        /// The system's time is up.
        func expire() { expiration.withLock { $0 }?() }

        /// Waits (at most `timeout` seconds) until the run was completed; its completions.
        func completed(timeout: TimeInterval = 10) async -> [Bool] {
            let deadline = Date().addingTimeInterval(timeout)
            while completions.withLock({ $0.isEmpty }), Date() < deadline {
                try? await Task.sleep(for: .milliseconds(20))
            }
            return completions.withLock { $0 }
        }
    }

    let state = Mutex(State())
    /// The process's record of registered identifiers (`AppleBackgroundTasks` keeps one per process).
    let registered = Mutex(Set<String>())

    func register(identifier: String, launch: @escaping @Sendable (SystemTaskRun) -> Void) -> Bool {
        state.withLock { state in
            guard !state.refuses else { return false }
            state.registrations.append(identifier)
            state.launches[identifier] = launch
            return true
        }
    }

    func submit(identifier: String, earliest: Date) {
        state.withLock { $0.submitted.append(identifier) }
    }

    /// A scheduler over this fake, as `AppleBackgroundTasks` builds one over `BGTaskScheduler`.
    var scheduler: SystemBackgroundScheduler<FakeSystemTasks> {
        SystemBackgroundScheduler(
            port: self, claim: { id in self.registered.withLock { $0.insert(id).inserted } },
            release: { id in _ = self.registered.withLock { $0.remove(id) } })
    }

    /// The system starts a run of `identifier`.
    func launch(_ identifier: String) -> Run? {
        guard let launch = state.withLock({ $0.launches[identifier] }) else { return nil }
        let run = Run()
        launch(run.system)
        return run
    }
}

@Suite("The background flush: registered once, stopped and completed when its time is up")
struct BackgroundTaskTests {
    static let identifier = BackgroundTasksAPI.identifier

    @Test func registeringTwiceRegistersWithTheSystemOnce() async throws {
        let system = FakeSystemTasks()
        let first = try TestSDK()
        let second = try TestSDK()
        first.tern.backgroundTasks.registerBackgroundTask(scheduler: system.scheduler)
        first.tern.backgroundTasks.registerBackgroundTask(scheduler: system.scheduler)
        second.tern.backgroundTasks.registerBackgroundTask(scheduler: system.scheduler)
        #expect(system.state.withLock { $0.registrations } == [Self.identifier], "a second register would end the app")
        await first.settle()
        await second.settle()
        let registered = first.events.all.filter { $0.name == "backgroundTaskRegister" }
        #expect(registered.count == 2 && registered.allSatisfy { !$0.isError }, "each call is told it is registered")
        await first.close()
        await second.close()
    }

    @Test func aRefusedRegistrationIsAnErrorAndCanBeTriedAgain() async throws {
        let system = FakeSystemTasks()
        system.state.withLock { $0.refuses = true }
        let sdk = try TestSDK()
        sdk.tern.backgroundTasks.registerBackgroundTask(scheduler: system.scheduler)
        let refused = try #require(await sdk.events.first("backgroundTaskRegister"))
        #expect(refused.isError && refused.reason?.contains("BGTaskSchedulerPermittedIdentifiers") == true)
        system.state.withLock { $0.refuses = false }
        sdk.tern.backgroundTasks.registerBackgroundTask(scheduler: system.scheduler)
        #expect(system.state.withLock { $0.registrations } == [Self.identifier])
        let accepted = await sdk.events.first(
            where: { $0.name == "backgroundTaskRegister" }, after: refused.index + 1)
        #expect(accepted?.isError == false)
        await sdk.close()
    }

    /// The outbox cannot empty (nothing answers), so only the expiration ends the run: the flush
    /// stops, the task is completed unsuccessfully, once, and the next run is asked for.
    @Test func anExpiredRunStopsTheFlushAndCompletesTheTaskUnsuccessfully() async throws {
        let system = FakeSystemTasks()
        let sdk = try TestSDK()
        sdk.tern.backgroundTasks.registerBackgroundTask(scheduler: system.scheduler)
        sdk.configure(apiUrl: "http://127.0.0.1:9/api/v1")
        sdk.tern.enqueueForTest((0..<3).map { Entries.event("expired\($0)") })
        await sdk.tern.flushCommands()
        let submittedBefore = system.state.withLock { $0.submitted.count }
        let run = try #require(system.launch(Self.identifier))
        try await Task.sleep(for: .milliseconds(300))
        #expect(run.completions.withLock { $0 }.isEmpty, "still flushing: the outbox has rows no one takes")
        run.expire()
        #expect(await run.completed() == [false], "completed once, unsuccessfully, well before the 25 s run limit")
        let done = try #require(await sdk.events.first("backgroundTaskCompleted"))
        #expect(!done.isError)
        #expect(system.state.withLock { $0.submitted.count } == submittedBefore + 1, "the next run is asked for")
        try await Task.sleep(for: .milliseconds(100))
        #expect(run.completions.withLock { $0 } == [false])
        await sdk.close()
    }

    @Test func aRunThatEmptiesTheOutboxCompletesTheTaskSuccessfully() async throws {
        let server = try ScriptedServer()
        defer { server.stop() }
        let system = FakeSystemTasks()
        let sdk = try TestSDK()
        sdk.tern.backgroundTasks.registerBackgroundTask(scheduler: system.scheduler)
        sdk.configure(apiUrl: server.apiUrl)
        sdk.tern.enqueueForTest((0..<3).map { Entries.event("sent\($0)") })
        await sdk.tern.flushCommands()
        let run = try #require(system.launch(Self.identifier))
        #expect(await run.completed() == [true])
        #expect(await server.requests.flatMap(Entries.messageIds).sorted() == ["sent0", "sent1", "sent2"])
        await sdk.close()
    }
}
