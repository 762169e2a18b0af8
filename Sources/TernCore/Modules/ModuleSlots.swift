import Foundation

/// Each module's own state for one SDK instance: a module keeps its objects here (made on first
/// use) instead of in a process-wide table, so they live and die with their ``Tern``.
///
/// ```swift
/// let coordinator = await core.slots.value("push.tokens") { TokenCoordinator() }
/// ```
public actor ModuleSlots {
    private var values: [String: any Sendable] = [:]

    /// Empty slots.
    public init() {}

    /// The value kept under `key`, made by `make` the first time.
    public func value<T: Sendable>(_ key: String, make: @Sendable () -> T) -> T {
        if let existing = values[key] as? T { return existing }
        let made = make()
        values[key] = made
        return made
    }
}

/// ``ModuleSlots`` for main-actor objects (the notification manager).
@MainActor
public final class MainActorModuleSlots {
    private var values: [String: Any] = [:]

    /// Empty slots.
    public nonisolated init() {}

    /// The value kept under `key`, made by `make` the first time.
    public func value<T>(_ key: String, make: () -> T) -> T {
        if let existing = values[key] as? T { return existing }
        let made = make()
        values[key] = made
        return made
    }
}
