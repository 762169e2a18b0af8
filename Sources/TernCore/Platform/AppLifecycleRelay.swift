import Foundation

/// The app's lifecycle as the app hands it over. An app extension links the same SDK code and has
/// no application object, so the SDK never reaches for one: the app attaches its lifecycle (on iOS
/// `registerBackgroundTask()` and `registerForPushNotifications(for:)` do), an extension never does,
/// and there nothing ever changes and no background time is asked for.
public actor AppLifecycleRelay: AppLifecycle {
    private var source: (any AppLifecycle)?
    private var current: AppState?
    private var continuations: [UUID: AsyncStream<AppState>.Continuation] = [:]

    /// A relay with no lifecycle attached yet.
    public init() {}

    /// Forwards `source`'s states and background time from now on; only the first call counts.
    public func attach(_ source: any AppLifecycle) {
        guard self.source == nil else { return }
        self.source = source
        Task {
            for await state in await source.states() { self.publish(state) }
        }
    }

    /// True once the app attached its lifecycle.
    public var isAttached: Bool { source != nil }

    public func states() -> AsyncStream<AppState> {
        let (stream, continuation) = AsyncStream.makeStream(of: AppState.self)
        let id = UUID()
        continuations[id] = continuation
        if let current { continuation.yield(current) }
        continuation.onTermination = { [weak self] _ in
            guard let self else { return }
            Task { await self.remove(id) }
        }
        return stream
    }

    public func beginBackgroundWork(_ name: String) async -> BackgroundWork {
        guard let source else { return .none }
        return await source.beginBackgroundWork(name)
    }

    private func publish(_ state: AppState) {
        current = state
        for continuation in continuations.values { continuation.yield(state) }
    }

    private func remove(_ id: UUID) {
        continuations[id] = nil
    }
}
