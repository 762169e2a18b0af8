import Foundation
import TernProtocol

/// Decides what happens after each attempt to send a request: done, try again after N seconds, or
/// drop. A pure function of the answer, the attempt count, the clock and a random number.
///
/// 2xx is success. 408, 429, 5xx and network failures are retried with exponential backoff and
/// jitter, waiting at least what `Retry-After` asks (up to ``maxRetryAfter``), each wait at most
/// ``maxDelay``, until ``budget`` seconds have passed since the first attempt. Other statuses are
/// dropped: the request itself is wrong and sending it again cannot help.
///
/// The reference retries `push/subscribe`, `push/suspend` and `push/unsubscribe` on 5xx only; Tern
/// also retries network failures, 408 and 429 (the request never reached the platform or was
/// refused for load, so it is as unapplied as after a 5xx, and the idempotency key makes a repeat safe).
public struct RetryPolicy: Sendable, Equatable {
    /// The first wait, in seconds; each later one doubles.
    public var baseDelay: TimeInterval
    /// The longest single wait (before `Retry-After`).
    public var maxDelay: TimeInterval
    /// How long after the first attempt the SDK keeps trying.
    public var budget: TimeInterval
    /// The longest `Retry-After` honoured.
    public var maxRetryAfter: TimeInterval
    /// The share of each wait that is random: 0.5 waits between half and all of the backoff.
    public var jitter: Double

    /// A policy; the defaults are the SDK's.
    ///
    /// - Parameters:
    ///   - baseDelay: The first wait in seconds; default 1.
    ///   - maxDelay: The longest single wait; default 300 seconds.
    ///   - budget: How long after the first attempt the SDK keeps trying; default 3 days.
    ///   - maxRetryAfter: The longest `Retry-After` honoured; default 3,600 seconds.
    ///   - jitter: The random share of each wait, clamped to 0...1; default 0.5.
    public init(
        baseDelay: TimeInterval = 1, maxDelay: TimeInterval = 300, budget: TimeInterval = 3 * 86_400,
        maxRetryAfter: TimeInterval = 3_600, jitter: Double = 0.5
    ) {
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
        self.budget = budget
        self.maxRetryAfter = maxRetryAfter
        self.jitter = min(max(jitter, 0), 1)
    }

    /// What came back from one attempt.
    public enum Outcome: Sendable, Equatable {
        /// An HTTP answer, with its `Retry-After` header if any.
        case status(Int, retryAfter: String? = nil)
        /// No HTTP answer.
        case network(String)
    }

    /// What to do with a request after an attempt.
    public enum Decision: Sendable, Equatable {
        /// The server accepted it (2xx): done.
        case success
        /// Send it again after this many seconds.
        case retry(after: TimeInterval)
        /// Give up; the reason says why in words a person can act on.
        case drop(reason: String)
    }

    /// Whether to retry a request, and when, given its last outcome.
    ///
    /// - Parameters:
    ///   - outcome: what the last attempt got.
    ///   - attempt: attempts made so far, this one included (1 for the first).
    ///   - firstAttemptAt: when the first attempt was made.
    ///   - now: the current time.
    ///   - retryable: false for requests that are never retried (status queries).
    ///   - random: a number in 0..<1 for the jitter.
    public func decide(
        _ outcome: Outcome, attempt: Int, firstAttemptAt: Date, now: Date, retryable: Bool = true, random: Double
    ) -> Decision {
        let reason: String
        switch outcome {
        case .status(let status, _) where (200..<300).contains(status):
            return .success
        case .status(let status, _) where !Self.isRetryable(status: status):
            return .drop(reason: "the server refused the request with HTTP \(status)")
        case .status(let status, _):
            reason = "HTTP \(status)"
        case .network(let description):
            reason = description
        }
        guard retryable else { return .drop(reason: "\(reason); this request is not retried") }
        var delay = backoff(attempt: attempt, random: random)
        if case .status(_, let header?) = outcome, let asked = RetryAfter.seconds(header, now: now) {
            delay = max(delay, min(asked, maxRetryAfter))
        }
        let elapsed = now.timeIntervalSince(firstAttemptAt) + delay
        guard elapsed <= budget else {
            return .drop(
                reason:
                    "\(reason); gave up after \(attempt) attempts over \(Int(now.timeIntervalSince(firstAttemptAt))) s")
        }
        return .retry(after: delay)
    }

    /// Exponential backoff with jitter: `base * 2^(attempt-1)`, capped, then scaled into
    /// `[(1 - jitter) * d, d]`.
    public func backoff(attempt: Int, random: Double) -> TimeInterval {
        let exponent = Double(max(0, min(attempt - 1, 62)))
        let capped = min(maxDelay, baseDelay * pow(2, exponent))
        let unit = min(max(random, 0), 1)
        return capped * (1 - jitter) + capped * jitter * unit
    }

    /// 408, 429 and 5xx: the platform did not apply the request and may later.
    public static func isRetryable(status: Int) -> Bool {
        status == 408 || status == 429 || (500..<600).contains(status)
    }
}
