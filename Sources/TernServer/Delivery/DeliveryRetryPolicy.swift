import Foundation

/// When a temporarily failed delivery is tried again: exponential backoff with jitter, a provider's
/// `Retry-After` honoured, and a limit on attempts. A pure function of its inputs, tested as a table.
///
/// ```swift
/// let policy = DeliveryRetryPolicy()
/// policy.delay(afterAttempt: 1, retryAfter: nil, jitter: 0.5)   // 2 s
/// policy.delay(afterAttempt: 3, retryAfter: 30, jitter: 0.5)    // 30 s: the provider asked
/// policy.delay(afterAttempt: 8, retryAfter: nil, jitter: 0.5)   // nil: give up
/// ```
struct DeliveryRetryPolicy: Sendable, Equatable {
    /// Attempts in all, the first included.
    var maxAttempts: Int = 8
    /// The wait after the first failure; it doubles after each.
    var baseDelay: TimeInterval = 2
    var maxDelay: TimeInterval = 600
    /// A provider asking for longer than this is answered with this.
    var maxRetryAfter: TimeInterval = 3600

    /// Seconds to wait before the next attempt after attempt `attempt` (1-based) failed temporarily,
    /// or nil when no attempt is left. `jitter` in 0..<1 spreads the wait over ±20 %; a provider's
    /// `retryAfter` is waited in full.
    func delay(afterAttempt attempt: Int, retryAfter: TimeInterval?, jitter: Double) -> TimeInterval? {
        guard attempt < maxAttempts else { return nil }
        if let retryAfter, retryAfter > 0 { return min(retryAfter, maxRetryAfter) }
        let exponent = Double(max(0, min(attempt - 1, 30)))
        let backoff = min(maxDelay, baseDelay * pow(2, exponent))
        let spread = 0.8 + 0.4 * min(max(jitter, 0), 1)
        return min(maxDelay, backoff * spread)
    }
}
