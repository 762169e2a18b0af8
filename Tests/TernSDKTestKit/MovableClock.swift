import Foundation
import Synchronization
import TernCore

/// A clock whose `now` a test moves forward; sleeping is real.
public final class MovableClock: TernClock {
    private let offset = Mutex<TimeInterval>(0)

    public init() {}

    public func now() -> Date { Date().addingTimeInterval(offset.withLock { $0 }) }

    /// Moves `now` forward by `seconds`.
    public func advance(_ seconds: TimeInterval) { offset.withLock { $0 += seconds } }

    public func sleep(seconds: TimeInterval) async throws {
        try await Task.sleep(nanoseconds: UInt64(max(0, seconds) * 1_000_000_000))
    }
}
