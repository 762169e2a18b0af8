import Foundation

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
    let setupQueue: SerialQueue
    let commandQueue: SerialQueue

    init(runtime: CoreRuntime, setupQueue: SerialQueue, commandQueue: SerialQueue) {
        self.runtime = runtime
        self.setupQueue = setupQueue
        self.commandQueue = commandQueue
    }

    /// The event bus.
    public var bus: EventBus { runtime.bus }

    /// Emits an event.
    public func emit(_ record: EventRecord) {
        runtime.bus.emit(record)
    }

    /// Runs `body` after every call made before this one (set-up calls included), once the SDK is
    /// initialized; reports
    /// `configIsNotSet` for `function` instead when the configuration was unusable.
    public func perform(_ function: String, _ body: @escaping @Sendable (ReadyCore) async -> Void) {
        // Through the set-up queue first, so a set-up call made earlier (a configuration, an
        // opt-out) is in force when the command runs.
        setupQueue.submit { [runtime, commandQueue] in
            commandQueue.submit {
                guard let ready = await runtime.awaitReady(function: function) else {
                    runtime.bus.emit(.error(function, CoreEvents.configIsNotSet))
                    return
                }
                await body(ready)
            }
        }
    }

    /// Adds a module: it is initialized with the others (or at once, after initialization) and
    /// cleared by `clear()`. Registering the same name again does nothing.
    public func register(_ module: any TernModule) {
        setupQueue.submit { [runtime] in await runtime.register(module) }
    }

    /// The environment's ports.
    public var environment: TernEnvironment { runtime.environment }
}
