import Foundation
import TernProtocol

/// What the core offers Tern's modules: ordered commands that run once the SDK is initialized,
/// module registration, events. Apps never need it.
///
/// ```swift
/// // Inside a module's synchronous public call:
/// tern.core.perform("subscribe") { core in
///     await core.enqueue(entry)
/// }
/// ```
public final class CoreServices: Sendable {
    let runtime: CoreRuntime
    /// The modules' own state for this instance.
    public let slots = ModuleSlots()
    /// The modules' own main-actor state for this instance.
    public let mainActorSlots = MainActorModuleSlots()

    init(runtime: CoreRuntime) {
        self.runtime = runtime
    }

    /// The event bus.
    public var bus: EventBus { runtime.bus }

    /// Emits an event.
    public func emit(_ record: EventRecord) {
        runtime.bus.emit(record)
    }

    /// Runs `body` after every call made before this one (set-up calls included), once the SDK is
    /// initialized; reports `configIsNotSet` for `function` instead when the configuration was
    /// unusable. Follow-ups the SDK makes on its own go through here too, so they take their place
    /// after the calls the app made before they were posted.
    public func perform(_ function: String, _ body: @escaping @Sendable (ReadyCore) async -> Void) {
        runtime.mailbox.post(.command(function, body))
    }

    /// ``perform(_:_:)`` for a call that owes its caller an answer (a completion, or an `await` on
    /// one): when the SDK lets the command go without running it (the configuration was unusable,
    /// reported as `configIsNotSet`; the SDK shut down first), `unrun` is called on the main queue
    /// instead, after the events reported before it, so the caller is always answered.
    ///
    /// ```swift
    /// core.perform("getToken", unrun: { completion(nil) }) { ready in
    ///     let token = await ready.token()
    ///     ready.onMain { completion(token) }
    /// }
    /// ```
    public func perform(
        _ function: String, unrun: @escaping @Sendable () -> Void, _ body: @escaping @Sendable (ReadyCore) async -> Void
    ) {
        let bus = runtime.bus
        runtime.mailbox.postCommand(function, unrun: { bus.onMain(unrun) }, body)
    }

    /// ``perform(_:_:)`` for a call that returned a ``QueuedRequest`` with `requestId`: when the SDK
    /// lets the command go without running it (the configuration was unusable, reported as
    /// `configIsNotSet`; the SDK shut down first), ``Tern/syncStates()`` reports the request
    /// `.failed`, so an app following it learns that it ended.
    ///
    /// ```swift
    /// let requestId = RequestKey.make()
    /// core.perform("setTags", requestId: requestId) { ready in await ready.enqueue(entry) }
    /// return QueuedRequest(id: requestId, state: .queued)
    /// ```
    public func perform(
        _ function: String, requestId: String, _ body: @escaping @Sendable (ReadyCore) async -> Void
    ) {
        let syncStates = runtime.syncStates
        let reason =
            "\(function) was not run: the configuration given to initialization is unusable (see configIsNotSet), "
            + "or the SDK shut down"
        runtime.mailbox.postCommand(
            function,
            unrun: { Task { await syncStates.fail(requestId, reason: reason) } }, body)
    }

    /// The ready core, once the SDK is initialized and every call made before this one has run; nil
    /// at once when the SDK cannot run calls (the configuration was unusable, reported as
    /// `configIsNotSet` for `function`; the SDK shut down), and nil after `timeout` seconds when it
    /// is not initialized by then. For a module's `async` API that talks to the server itself.
    ///
    /// ```swift
    /// guard let ready = await core.readyCore("sync", timeout: 30) else { throw NotInitialized() }
    /// ```
    public func readyCore(_ function: String, timeout: TimeInterval) async -> ReadyCore? {
        // The first of the three answers is kept: the command, its release unrun, the timer.
        let (answers, answer) = AsyncStream.makeStream(of: ReadyCore?.self, bufferingPolicy: .bufferingOldest(1))
        perform(function, unrun: { answer.yield(nil) }) { ready in answer.yield(ready) }
        let timer = Task {
            try? await Task.sleep(for: .seconds(timeout))
            answer.yield(nil)
        }
        defer { timer.cancel() }
        for await ready in answers { return ready }
        return nil
    }

    /// ``perform(_:_:)``, returning a stream that ends once `body` has run, or once the SDK shut
    /// down before running it: wait on it (`for await _ in stream {}`) to know the command is done.
    public func performed(_ function: String, _ body: @escaping @Sendable (ReadyCore) async -> Void)
        -> AsyncStream<Void>
    {
        runtime.mailbox.postCommand(function, body)
    }

    /// A module that handles pushes (TernPush) got a Tern push while the app runs: every
    /// registered module reads it (``ModuleParts/handlePush``), in the mailbox after the calls made
    /// before, so a module never has to import the one that received it.
    ///
    /// - Parameters:
    ///   - payload: The push's `userInfo` as JSON.
    ///   - function: The SDK function that got it (`willPresent`, `didReceive`), for events.
    public func handlePush(_ payload: [String: JSONValue], function: String) {
        let runtime = runtime
        perform(function) { ready in
            for handler in await runtime.pushHandlers { await handler(payload, ready) }
        }
    }

    /// Adds a module: it is initialized with the others (or at once, after initialization) and
    /// cleared by `clear()`. Registering the same name again does nothing.
    public func register(_ module: any TernModule) {
        runtime.mailbox.post(.setup { [runtime] in await runtime.register(module) })
    }

    /// Hands the app's lifecycle to the SDK when the environment's lifecycle is an
    /// ``AppLifecycleRelay`` (the iOS default); the first lifecycle attached stays.
    public func attachAppLifecycle(_ lifecycle: any AppLifecycle) {
        guard let relay = runtime.environment.lifecycle as? AppLifecycleRelay else { return }
        runtime.mailbox.post(.setup { await relay.attach(lifecycle) })
    }

    /// The event kinds of the core and of the modules registered so far (after the set-up calls
    /// made before this one).
    public func eventCatalog() async -> EventCatalog {
        await runtime.mailbox.settled()
        return await runtime.events
    }

    /// The environment's ports.
    public var environment: TernEnvironment { runtime.environment }
}
