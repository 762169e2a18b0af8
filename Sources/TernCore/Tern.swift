import Foundation
@_exported import TernProtocol

/// The SDK's door: configuration, events, authentication, consent, clearing. Each module adds its
/// own property (`Tern.shared.push`, `.target`, `.profile`), so an app links only what it uses.
///
/// Every call returns at once and never throws: bad input becomes an ``ErrorEvent``. Calls run in the
/// order they were made; calls made before ``initialization(configuration:completion:)`` wait for it
/// (``CoreEvents/initAwait``) and then run in that order.
///
/// ```swift
/// Tern.shared.setAppGroup(groupName: "group.com.example.app")
/// Tern.shared.eventSDKFunctions.subscribe { event in print(event.message ?? "") }
/// Tern.shared.initialization(configuration: TernConfiguration.Builder(apiUrl: apiUrl).setRToken(rToken).build())
/// ```
public final class Tern: Sendable {
    /// The app's SDK, on the platform's defaults.
    public static let shared = Tern(environment: .platformDefault)

    /// SDK events: one subscriber, on the main queue.
    public let eventSDKFunctions: SDKEvents
    /// `authenticate()` and `logOut()`.
    public let authFunctions: AuthAPI
    /// The installation's identity binding: `login(externalId:)`, `logout()`, `identityState`.
    public let identity: IdentityAPI
    /// The background flush (`registerBackgroundTask()`).
    public let backgroundTasks: BackgroundTasksAPI
    /// What Tern's modules build on; apps never need it.
    public let core: CoreServices
    /// The platform parts and tuning this SDK runs on (``TernEnvironment/platformDefault`` for ``shared``).
    public let environment: TernEnvironment

    let runtime: CoreRuntime
    /// Every call, in order (set-up calls never wait for initialization; commands do).
    var mailbox: Mailbox { runtime.mailbox }

    /// An SDK on `environment`: for tests and the simulated device (`Tern(environment: .directory(url))`);
    /// apps use ``shared``.
    public init(environment: TernEnvironment) {
        self.environment = environment
        let bus = EventBus()
        let runtime = CoreRuntime(environment: environment, bus: bus)
        self.runtime = runtime
        eventSDKFunctions = SDKEvents(bus: bus)
        core = CoreServices(runtime: runtime)
        authFunctions = AuthAPI(core: core)
        identity = IdentityAPI(core: core)
        backgroundTasks = BackgroundTasksAPI(core: core)
    }

    /// Sets the configuration (reporting `configSet`, or the reason it is unusable), then
    /// initializes the modules; `completion` gets each module's outcome on the main queue.
    public func initialization(
        configuration: TernConfiguration, completion: (@Sendable ([ModuleInitStatus]) -> Void)? = nil
    ) {
        // Every linked module, whether or not the app touched it yet, in one fixed order.
        let linked = ModuleDiscovery.linked(core)
        mailbox.post(
            .setup { [runtime] in
                await runtime.register(linked: linked)
                await runtime.initialize(configuration, completion: completion)
            })
    }

    /// The app group whose container holds the SDK's database, shared with the Notification Service
    /// Extension. Call it before ``initialization(configuration:completion:)``.
    public func setAppGroup(groupName: String?) {
        mailbox.post(.setup { [runtime] in await runtime.setAppGroup(groupName) })
    }

    /// The JWT provider, asked each time a request is sent (nil removes it).
    public func setJWTProvider(provider: (any JWTInterface)?) {
        mailbox.post(.setup { [runtime] in await runtime.auth.setProvider(provider) })
    }

    /// Turns collection on (after the user's consent) or off. Saved: an opt-out holds across
    /// restarts and upgrades whatever the configuration says. While off, nothing is collected or sent.
    public func setCollectionEnabled(_ enabled: Bool) {
        mailbox.post(.setup { [runtime] in await runtime.setCollectionEnabled(enabled) })
    }

    /// True while collection is on.
    public var isCollectionEnabled: Bool {
        get async {
            await mailbox.settled()
            return await runtime.collectionEnabled
        }
    }

    /// True once a usable configuration was given to ``initialization(configuration:completion:)``
    /// (after the set-up calls made before this one).
    public var isConfigured: Bool {
        get async {
            await mailbox.settled()
            return await runtime.configuration != nil
        }
    }

    /// Deletes the SDK's data (outbox, settings, token, sessions; a saved opt-out is kept), cancels
    /// pending retries, reports `sdkCleared`, then calls `completion` on the main queue.
    public func clear(completion: (@Sendable () -> Void)? = nil) {
        mailbox.post(
            .ordered { [runtime] in
                await runtime.clear()
                runtime.bus.emit(.info("clear", CoreEvents.sdkCleared))
                if let completion { runtime.bus.onMain(completion) }
            })
    }

    /// Each request's progress: persisted in the outbox, then synced (acknowledged by the server)
    /// or failed.
    public func syncStates() async -> AsyncStream<SyncUpdate> {
        await runtime.syncStates.stream()
    }

    /// The outbox's counts (pending rows, totals), nil before initialization.
    public func outboxStatistics() async -> OutboxStatistics? {
        await runtime.awaitWrites()
        return try? await runtime.store?.statistics()
    }

    /// Sends what is due, returning true when the outbox and the identity journal emptied before
    /// `timeout` seconds.
    public func flush(timeout: TimeInterval) async -> Bool {
        await flushQueues()
        return await runtime.flush(until: environment.clock.now().addingTimeInterval(timeout))
    }

    /// Returns when every call made before it has run (tests).
    func flushCommands() async {
        await flushQueues()
        await runtime.bus.flush()
    }

    /// Returns when every call made before it has run.
    public func flushQueues() async {
        await mailbox.drained()
        await runtime.awaitWrites()
    }

    /// Stops the SDK's tasks; for tests and the simulated device before they exit. The instance is
    /// unusable afterwards.
    public func shutdown() async {
        await runtime.shutdown()
        await runtime.bus.flush()
        runtime.bus.shutdown()
    }
}
