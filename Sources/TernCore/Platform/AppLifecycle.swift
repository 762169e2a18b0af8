import Foundation

/// Whether the app is in front of the user.
public enum AppState: Sendable, Equatable {
    /// The app is active and in front of the user.
    case foreground
    /// The app is in the background (or not yet active).
    case background
}

/// Tells the SDK when the app comes to the foreground and leaves it (sessions, token refresh), and
/// keeps the app running while the SDK finishes database work it began, so the app is never
/// suspended holding a lock on the shared database (`0xdead10cc`).
public protocol AppLifecycle: Sendable {
    /// Every change from now on, in order (the current state first, when known).
    func states() async -> AsyncStream<AppState>
    /// Asks the system for time to finish work named `name`, should the app leave the foreground
    /// meanwhile (`beginBackgroundTask` on iOS); the SDK calls the answer's ``BackgroundWork/end()``
    /// when the work is done.
    func beginBackgroundWork(_ name: String) async -> BackgroundWork
}

extension AppLifecycle {
    /// No process to keep alive: tests, Linux, an app extension.
    public func beginBackgroundWork(_ name: String) async -> BackgroundWork { BackgroundWork.none }
}

/// Background time granted for one piece of work; ``end()`` gives it back (once; later calls do nothing).
public struct BackgroundWork: Sendable {
    private let finish: @Sendable () async -> Void

    /// Work that ends with `end`.
    public init(end: @escaping @Sendable () async -> Void) {
        finish = end
    }

    /// Nothing was asked for.
    public static let none = BackgroundWork {}

    /// The work is done.
    public func end() async {
        await finish()
    }
}

/// ``AppLifecycle`` driven by calls: the simulated device and tests say when the app is in front.
public actor ManualAppLifecycle: AppLifecycle {
    private var continuations: [UUID: AsyncStream<AppState>.Continuation] = [:]

    /// A lifecycle with no listeners; ``set(_:)`` reports changes.
    public init() {}

    public func states() -> AsyncStream<AppState> {
        let (stream, continuation) = AsyncStream.makeStream(of: AppState.self)
        let id = UUID()
        continuations[id] = continuation
        continuation.onTermination = { [weak self] _ in
            guard let self else { return }
            Task { await self.remove(id) }
        }
        return stream
    }

    /// Reports a change to every listener.
    public func set(_ state: AppState) {
        for continuation in continuations.values { continuation.yield(state) }
    }

    private func remove(_ id: UUID) {
        continuations[id] = nil
    }
}
