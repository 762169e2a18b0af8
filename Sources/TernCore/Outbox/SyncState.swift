import Foundation

/// Where a request stands, as ``Tern/syncStates()`` reports it.
public enum SyncState: Sendable, Equatable {
    /// Accepted by the call; written to the outbox as soon as the SDK is initialized.
    case queued
    /// Written to the outbox: it survives the process.
    case persisted
    /// The server acknowledged it.
    case synced
    /// Dropped: refused by the server, out of retry budget, or not accepted (the reason says which).
    case failed(reason: String)
}

/// One change of one request's state.
public struct SyncUpdate: Sendable, Equatable {
    /// The request's id: the value the public call returned in ``QueuedRequest/id``, also sent as
    /// the `Idempotency-Key`.
    public let requestId: String
    /// The request's new state.
    public let state: SyncState
}

/// What a public call that sends a request returns at once.
///
/// ```swift
/// let request = Tern.shared.push.subscription.subscribe()
/// for await update in Tern.shared.syncStates() where update.requestId == request.id {
///     if update.state == .synced { break }
/// }
/// ```
public struct QueuedRequest: Sendable, Equatable {
    public let id: String
    /// `.queued`, or `.failed` when the call was refused at once (bad input, see the ErrorEvent).
    public let state: SyncState

    /// Describes a call's request.
    ///
    /// - Parameters:
    ///   - id: The request's id (its `Idempotency-Key`).
    ///   - state: Its state when the call returned.
    public init(id: String, state: SyncState) {
        self.id = id
        self.state = state
    }

    /// A call refused before anything was queued.
    public static func rejected(_ reason: String) -> QueuedRequest {
        QueuedRequest(id: UUID().uuidString, state: .failed(reason: reason))
    }
}

/// Fans sync updates out to every listener.
actor SyncStateHub {
    private var continuations: [UUID: AsyncStream<SyncUpdate>.Continuation] = [:]

    func stream() -> AsyncStream<SyncUpdate> {
        let (stream, continuation) = AsyncStream.makeStream(of: SyncUpdate.self)
        let id = UUID()
        continuations[id] = continuation
        continuation.onTermination = { [weak self] _ in
            guard let self else { return }
            Task { await self.remove(id) }
        }
        return stream
    }

    var hasListeners: Bool { !continuations.isEmpty }

    func publish(_ updates: [SyncUpdate]) {
        guard !continuations.isEmpty else { return }
        for continuation in continuations.values {
            for update in updates { continuation.yield(update) }
        }
    }

    /// Reports a request that ended without being queued (refused, or never run) as `.failed`.
    func fail(_ requestId: String, reason: String) {
        publish([SyncUpdate(requestId: requestId, state: .failed(reason: reason))])
    }

    private func remove(_ id: UUID) {
        continuations[id] = nil
    }
}
