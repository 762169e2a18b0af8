import Foundation
import Synchronization
import TernSDKTestKit
import TernTestSupport

@testable import TernInApp

/// A presenter that records what it is handed and confirms each presentation as shown at once
/// (or not, when `confirms` is false), as the iOS window does once everything is drawn.
final class RecordingPresenter: InAppPresenter {
    struct State {
        var shown: [InAppPresentation] = []
        var removals = 0
        var layouts: [InAppLayout] = []
        var channel: InAppDisplayChannel?
    }

    let state = Mutex(State())
    let confirms: Bool

    init(confirms: Bool = true) {
        self.confirms = confirms
    }

    func present(_ presentation: InAppPresentation?, channel: InAppDisplayChannel) {
        state.withLock { state in
            state.channel = channel
            if let presentation { state.shown.append(presentation) } else { state.removals += 1 }
        }
        if let presentation, confirms { channel.shown(presentation.id) }
    }

    func layout(_ id: String, _ layout: InAppLayout) {
        state.withLock { $0.layouts.append(layout) }
    }

    var shown: [InAppPresentation] { state.withLock { $0.shown } }
    var channel: InAppDisplayChannel? { state.withLock { $0.channel } }

    /// Waits until `count` presentations were handed over.
    func waitForShown(_ count: Int, timeout: TimeInterval = 30) async -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if shown.count >= count { return true }
            try? await Task.sleep(nanoseconds: 20_000_000)
        }
        return shown.count >= count
    }
}

/// An SDK in a directory that outlives it, so a test can start it again on the same database.
final class InAppDevice {
    let directory: TemporaryDirectory
    let clock = MovableClock()
    let lifecycle = ManualAppLifecycle()
    private(set) var tern: Tern
    private(set) var events: EventLog
    let presenter: RecordingPresenter

    init(presenter: RecordingPresenter = RecordingPresenter()) throws {
        directory = try TemporaryDirectory(prefix: "tern-inapp")
        self.presenter = presenter
        (tern, events) = Self.make(directory, clock, lifecycle)
    }

    private static func make(_ directory: TemporaryDirectory, _ clock: MovableClock, _ lifecycle: ManualAppLifecycle)
        -> (Tern, EventLog)
    {
        var environment = TernEnvironment.directory(directory.url)
        environment.clock = clock
        environment.lifecycle = lifecycle
        environment.retryPolicy = RetryPolicy(baseDelay: 0.02, maxDelay: 0.2, budget: 60, maxRetryAfter: 1, jitter: 0)
        let tern = Tern(environment: environment)
        return (tern, EventLog(tern))
    }

    var inApp: InApp { tern.inApp }

    /// Sets the configuration and this device's presenter.
    func start(
        apiUrl: String, rToken: String = "rt_inapp", jwt: String? = nil, autoRequest: Bool = false,
        interval: TimeInterval = 300, maxPlacements: Int = 10, handlers: InAppHandlers = InAppHandlers()
    ) {
        tern.setAppGroup(groupName: "group.tern.inapp")
        if let jwt { tern.setJWTProvider(provider: FixedJWT(jwt)) }
        tern.initialization(
            configuration: TernConfiguration.Builder(apiUrl: apiUrl).setRToken(rToken).setInAppAutoRequest(autoRequest)
                .setPlacementsRequestInterval(interval).setMaxPlacements(maxPlacements).build())
        inApp.setHandlers(handlers)
        inApp.setPresenter(presenter)
    }

    /// The app is killed and launched again on the same database.
    func restart() async {
        await tern.shutdown()
        (tern, events) = Self.make(directory, clock, lifecycle)
    }

    func settle() async {
        await inApp.settle()
        await tern.flushQueues()
        await tern.core.bus.flush()
    }

    func close() async {
        await tern.shutdown()
        directory.remove()
    }

    func names() -> [String] { events.all.map(\.name) }
}
