import Foundation

/// Runs the SDK's background work when the system allows: `BGTaskScheduler` on iOS.
public protocol BackgroundTaskScheduler: Sendable {
    /// Registers `work` under `identifier`; returns false when the system refuses (e.g. the
    /// identifier is missing from Info.plist's `BGTaskSchedulerPermittedIdentifiers`).
    func register(identifier: String, work: @escaping @Sendable () async -> Void) async -> Bool
    /// Asks the system to run the work again, not before `earliest`.
    func schedule(identifier: String, earliest: Date) async
}

/// ``BackgroundTaskScheduler`` for Linux: the work runs when ``runNow(identifier:)`` is called (by
/// tests, or `tern device flush`); scheduling only records the earliest date.
public actor ManualBackgroundScheduler: BackgroundTaskScheduler {
    private var work: [String: @Sendable () async -> Void] = [:]
    /// The earliest date asked for, per identifier.
    public private(set) var scheduled: [String: Date] = [:]

    public init() {}

    public func register(identifier: String, work: @escaping @Sendable () async -> Void) -> Bool {
        self.work[identifier] = work
        return true
    }

    public func schedule(identifier: String, earliest: Date) {
        scheduled[identifier] = earliest
    }

    /// Runs the registered work and returns when it is done; false when nothing is registered.
    @discardableResult
    public func runNow(identifier: String) async -> Bool {
        guard let work = work[identifier] else { return false }
        await work()
        return true
    }
}
