import Foundation

/// Whether the app is in front of the user.
public enum AppState: Sendable, Equatable {
    case foreground
    case background
}

/// Tells the SDK when the app comes to the foreground and leaves it (sessions, flushing).
public protocol AppLifecycle: Sendable {
    /// Every change from now on, in order.
    func states() async -> AsyncStream<AppState>
}

/// ``AppLifecycle`` driven by calls: the simulated device and tests say when the app is in front.
public actor ManualAppLifecycle: AppLifecycle {
    private var continuations: [UUID: AsyncStream<AppState>.Continuation] = [:]

    public init() {}

    public func states() -> AsyncStream<AppState> {
        let (stream, continuation) = AsyncStream.makeStream(of: AppState.self)
        let id = UUID()
        continuations[id] = continuation
        continuation.onTermination = { [weak self] _ in
            Task { await self?.remove(id) }
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
