import Foundation

/// Time and waiting, behind a port so tests and benchmarks control them.
public protocol TernClock: Sendable {
    /// The current time.
    func now() -> Date
    /// Sleeps; throws `CancellationError` when the task is cancelled.
    func sleep(seconds: TimeInterval) async throws
}

/// The real clock.
public struct SystemClock: TernClock {
    /// The system's clock.
    public init() {}

    /// The current time: `Date()`.
    public func now() -> Date { Date() }

    public func sleep(seconds: TimeInterval) async throws {
        guard seconds > 0 else { return try Task.checkCancellation() }
        try await Task.sleep(nanoseconds: UInt64(min(seconds, 86_400) * 1_000_000_000))
    }
}
