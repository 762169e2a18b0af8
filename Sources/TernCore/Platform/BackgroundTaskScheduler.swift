import Foundation

/// Runs the SDK's background work when the system allows: `BGTaskScheduler` on iOS.
public protocol BackgroundTaskScheduler: Sendable {
    /// Registers `work` under `identifier`, synchronously (iOS requires it before the app finishes
    /// launching); returns false when the system refuses (e.g. the identifier is missing from
    /// Info.plist's `BGTaskSchedulerPermittedIdentifiers`).
    func register(identifier: String, work: @escaping @Sendable () async -> Void) -> Bool
    /// Asks the system to run the work again, not before `earliest`.
    func schedule(identifier: String, earliest: Date) async
}

/// ``BackgroundTaskScheduler`` for Linux: the work runs when ``runNow(identifier:)`` is called (by
/// tests, or `tern device flush`); scheduling only records the earliest date.
public final class ManualBackgroundScheduler: BackgroundTaskScheduler {
    actor Registry {
        var work: [String: @Sendable () async -> Void] = [:]
        var scheduled: [String: Date] = [:]

        func set(_ identifier: String, _ work: @escaping @Sendable () async -> Void) { self.work[identifier] = work }
        func schedule(_ identifier: String, _ date: Date) { scheduled[identifier] = date }
    }

    private let registry = Registry()
    /// Keeps registrations in call order, though `register` returns before they are stored.
    private let queue = SerialQueue()

    /// A scheduler with nothing registered.
    public init() {}

    public func register(identifier: String, work: @escaping @Sendable () async -> Void) -> Bool {
        queue.submit { [registry] in await registry.set(identifier, work) }
        return true
    }

    public func schedule(identifier: String, earliest: Date) async {
        await queue.drain()
        await registry.schedule(identifier, earliest)
    }

    /// The earliest date asked for, per identifier.
    public var scheduled: [String: Date] {
        get async {
            await queue.drain()
            return await registry.scheduled
        }
    }

    /// Runs the registered work and returns when it is done; false when nothing is registered.
    @discardableResult
    public func runNow(identifier: String) async -> Bool {
        await queue.drain()
        guard let work = await registry.work[identifier] else { return false }
        await work()
        return true
    }
}
