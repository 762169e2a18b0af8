import Foundation
import TernProtocol
import Testing

@testable import TernCore

@Suite("The retry policy decides from the answer, the attempt and the clock")
struct RetryPolicyTests {
    static let start = Date(timeIntervalSince1970: 1_700_000_000)
    static let policy = RetryPolicy(baseDelay: 1, maxDelay: 60, budget: 3_600, maxRetryAfter: 120, jitter: 0.5)

    struct Row: Sendable, CustomStringConvertible {
        var outcome: RetryPolicy.Outcome
        var attempt: Int
        var elapsed: TimeInterval
        var random: Double
        var retryable = true
        var expected: Expected
        var description: String { "\(outcome) attempt \(attempt) after \(elapsed)s" }
    }

    enum Expected: Sendable, Equatable {
        case success
        case retry(TimeInterval)
        case drop
    }

    static let table: [Row] = [
        // 2xx: done.
        Row(outcome: .status(200), attempt: 1, elapsed: 0, random: 0.5, expected: .success),
        Row(outcome: .status(204), attempt: 7, elapsed: 100, random: 0.5, expected: .success),
        // 5xx, 408, 429, network: exponential backoff, jitter between half and all of it.
        Row(outcome: .status(500), attempt: 1, elapsed: 0, random: 1, expected: .retry(1)),
        Row(outcome: .status(500), attempt: 1, elapsed: 0, random: 0, expected: .retry(0.5)),
        Row(outcome: .status(503), attempt: 2, elapsed: 1, random: 1, expected: .retry(2)),
        Row(outcome: .status(502), attempt: 4, elapsed: 5, random: 0.5, expected: .retry(6)),
        Row(outcome: .status(408), attempt: 3, elapsed: 3, random: 1, expected: .retry(4)),
        Row(outcome: .status(429), attempt: 1, elapsed: 0, random: 1, expected: .retry(1)),
        Row(outcome: .network("connection refused"), attempt: 5, elapsed: 10, random: 1, expected: .retry(16)),
        // The cap.
        Row(outcome: .status(500), attempt: 30, elapsed: 100, random: 1, expected: .retry(60)),
        Row(outcome: .status(500), attempt: 30, elapsed: 100, random: 0, expected: .retry(30)),
        // Retry-After: at least what the server asks, at most maxRetryAfter.
        Row(outcome: .status(429, retryAfter: "7"), attempt: 1, elapsed: 0, random: 1, expected: .retry(7)),
        Row(outcome: .status(503, retryAfter: "7"), attempt: 6, elapsed: 0, random: 1, expected: .retry(32)),
        Row(outcome: .status(429, retryAfter: "86400"), attempt: 1, elapsed: 0, random: 1, expected: .retry(120)),
        Row(outcome: .status(429, retryAfter: "soon"), attempt: 1, elapsed: 0, random: 1, expected: .retry(1)),
        // The total budget.
        Row(outcome: .status(500), attempt: 20, elapsed: 3_590, random: 1, expected: .drop),
        Row(outcome: .network("timed out"), attempt: 20, elapsed: 3_540, random: 1, expected: .retry(60)),
        // Other 4xx: dropped at once.
        Row(outcome: .status(400), attempt: 1, elapsed: 0, random: 0.5, expected: .drop),
        Row(outcome: .status(401), attempt: 1, elapsed: 0, random: 0.5, expected: .drop),
        Row(outcome: .status(404), attempt: 1, elapsed: 0, random: 0.5, expected: .drop),
        Row(outcome: .status(422), attempt: 1, elapsed: 0, random: 0.5, expected: .drop),
        // 3xx and 1xx are not success either.
        Row(outcome: .status(301), attempt: 1, elapsed: 0, random: 0.5, expected: .drop),
        // Requests that are never retried.
        Row(outcome: .status(500), attempt: 1, elapsed: 0, random: 0.5, retryable: false, expected: .drop),
        Row(outcome: .status(200), attempt: 1, elapsed: 0, random: 0.5, retryable: false, expected: .success),
    ]

    @Test(arguments: table)
    func decides(_ row: Row) {
        let decision = Self.policy.decide(
            row.outcome, attempt: row.attempt, firstAttemptAt: Self.start,
            now: Self.start.addingTimeInterval(row.elapsed), retryable: row.retryable, random: row.random)
        switch (decision, row.expected) {
        case (.success, .success), (.drop, .drop): break
        case (.retry(let after), .retry(let expected)): #expect(abs(after - expected) < 1e-9, "\(row)")
        default: Issue.record("\(row): got \(decision), expected \(row.expected)")
        }
    }

    @Test func dropsSayWhy() {
        let refused = Self.policy.decide(
            .status(400), attempt: 1, firstAttemptAt: Self.start, now: Self.start, random: 0)
        #expect(refused == .drop(reason: "the server refused the request with HTTP 400"))
        let late = Self.policy.decide(
            .network("connection refused"), attempt: 9, firstAttemptAt: Self.start,
            now: Self.start.addingTimeInterval(3_599), random: 1)
        guard case .drop(let reason) = late else {
            Issue.record("expected a drop, got \(late)")
            return
        }
        #expect(reason.contains("connection refused") && reason.contains("9 attempts"))
    }

    @Test func retryAfterReadsSecondsAndHTTPDates() {
        let now = Date(timeIntervalSince1970: 1_445_412_480)  // Wed, 21 Oct 2015 07:28:00 GMT
        #expect(RetryAfter.seconds("120", now: now) == 120)
        #expect(RetryAfter.seconds(" 0 ", now: now) == 0)
        // The one parser (TernProtocol) the server uses too: "-5" is not a delay, so it is ignored.
        #expect(RetryAfter.seconds("-5", now: now) == nil)
        #expect(RetryAfter.seconds("Wed, 21 Oct 2015 07:30:00 GMT", now: now) == 120)
        #expect(RetryAfter.seconds("Wed, 21 Oct 2015 07:00:00 GMT", now: now) == 0)
        #expect(RetryAfter.seconds("tomorrow", now: now) == nil)
    }
}
