import Foundation

/// Runs `body`, which blocks (waits for a child process, a cluster's start, a pipe's end), on a
/// thread of its own and returns what it returns, without holding one of Swift's cooperative
/// threads meanwhile.
///
/// The whole test run shares one cooperative pool as wide as the machine has cores: two here. Two
/// tests blocking a cooperative thread each for seconds stop every other test for that long, and a
/// test whose server counts a deadline meanwhile (the idle timeout after a `100 Continue`, say) then
/// sees it pass while its client never got to run.
///
/// ```swift
/// let status = try await offThePool { child.waitUntilExit() }
/// ```
public func offThePool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread { continuation.resume(with: Result { try body() }) }
    }
}
