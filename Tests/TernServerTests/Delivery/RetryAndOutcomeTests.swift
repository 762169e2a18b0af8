import Foundation
import Testing

@testable import TernServer

/// The retry policy and the outcome resolver are pure: tested as tables.
@Suite struct RetryAndOutcomeTests {
    struct RetryCase: Sendable, CustomTestStringConvertible {
        let attempt: Int
        let retryAfter: TimeInterval?
        let jitter: Double
        let expected: TimeInterval?
        var testDescription: String { "attempt \(attempt), Retry-After \(retryAfter.map { "\($0)" } ?? "none")" }
    }

    static let retryCases: [RetryCase] = [
        RetryCase(attempt: 1, retryAfter: nil, jitter: 0.5, expected: 2),
        RetryCase(attempt: 2, retryAfter: nil, jitter: 0.5, expected: 4),
        RetryCase(attempt: 3, retryAfter: nil, jitter: 0, expected: 8 * 0.8),
        RetryCase(attempt: 3, retryAfter: nil, jitter: 1, expected: 8 * 1.2),
        RetryCase(attempt: 7, retryAfter: nil, jitter: 0.5, expected: 128),
        RetryCase(attempt: 2, retryAfter: 30, jitter: 0.5, expected: 30),
        RetryCase(attempt: 2, retryAfter: 90_000, jitter: 0.5, expected: 3600),
        RetryCase(attempt: 2, retryAfter: 0, jitter: 0.5, expected: 4),
        RetryCase(attempt: 8, retryAfter: nil, jitter: 0.5, expected: nil),
        RetryCase(attempt: 8, retryAfter: 5, jitter: 0.5, expected: nil),
    ]

    @Test(arguments: retryCases)
    func retryDelay(_ row: RetryCase) {
        let policy = DeliveryRetryPolicy()
        let delay = policy.delay(afterAttempt: row.attempt, retryAfter: row.retryAfter, jitter: row.jitter)
        if let expected = row.expected {
            #expect(abs((delay ?? -1) - expected) < 0.0001)
        } else {
            #expect(delay == nil)
        }
    }

    @Test func backoffIsCappedAtTheMaximumDelay() {
        let policy = DeliveryRetryPolicy(maxAttempts: 100, baseDelay: 2, maxDelay: 600)
        #expect(policy.delay(afterAttempt: 40, retryAfter: nil, jitter: 1) == 600)
    }

    static let claimed = ClaimedDelivery(
        id: 7, messageId: 1, subscriptionId: 3, provider: .apns, token: "t", attempt: 2)
    static let now: Int64 = 1_000_000

    struct OutcomeCase: Sendable, CustomTestStringConvertible {
        let name: String
        let outcome: DeliveryOutcome
        let expiration: Int64?
        let status: DeliveryStatus
        let reason: String?
        let dueAt: Int64?
        let marks: Bool
        var testDescription: String { name }
    }

    static let outcomeCases: [OutcomeCase] = [
        OutcomeCase(
            name: "sent", outcome: .sent(providerMessageId: "x"), expiration: nil, status: .sent, reason: nil,
            dueAt: nil, marks: false),
        OutcomeCase(
            name: "failed keeps the reason", outcome: .failed(reason: "PayloadTooLarge"), expiration: nil,
            status: .failed, reason: "PayloadTooLarge", dueAt: nil, marks: false),
        OutcomeCase(
            name: "invalid token marks", outcome: .invalidToken(reason: "Unregistered", since: nil), expiration: nil,
            status: .invalidToken, reason: "Unregistered", dueAt: nil, marks: true),
        OutcomeCase(
            name: "retry honours Retry-After", outcome: .retry(after: 30, reason: "429 TooManyRequests"),
            expiration: nil, status: .queued, reason: "retrying: 429 TooManyRequests", dueAt: now + 30_000,
            marks: false),
        OutcomeCase(
            name: "retry backs off", outcome: .retry(after: nil, reason: "503"), expiration: nil, status: .queued,
            reason: "retrying: 503", dueAt: now + 4_000, marks: false),
        OutcomeCase(
            name: "retry past the time to live fails", outcome: .retry(after: 30, reason: "503"),
            expiration: now + 10_000, status: .failed,
            reason: "expired: its time to live ran out before a retry (503)", dueAt: nil, marks: false),
        OutcomeCase(
            name: "time to live 0 never retries", outcome: .retry(after: nil, reason: "503"), expiration: 0,
            status: .failed, reason: "expired: its time to live ran out before a retry (503)", dueAt: nil,
            marks: false),
    ]

    @Test(arguments: outcomeCases)
    func outcomeResolution(_ row: OutcomeCase) {
        let resolver = OutcomeResolver(policy: DeliveryRetryPolicy())
        let decision = resolver.resolve(
            row.outcome, for: Self.claimed, expiration: row.expiration, now: Self.now, jitter: 0.5)
        #expect(decision.update.id == 7)
        #expect(decision.update.attempt == 2)
        #expect(decision.update.status == row.status)
        #expect(decision.update.reason == row.reason)
        #expect(decision.update.dueAt == row.dueAt)
        #expect((decision.invalidMark != nil) == row.marks)
    }

    @Test func theLastAttemptGivesUpWithTheReason() {
        let resolver = OutcomeResolver(policy: DeliveryRetryPolicy(maxAttempts: 2))
        let decision = resolver.resolve(
            .retry(after: nil, reason: "connection refused"), for: Self.claimed, expiration: nil, now: Self.now,
            jitter: 0.5)
        #expect(decision.update.status == .failed)
        #expect(decision.update.reason == "gave up after 2 attempts: connection refused")
    }

    @Test func anInvalidTokenCarriesTheProvidersMoment() {
        let resolver = OutcomeResolver(policy: DeliveryRetryPolicy())
        let since = Date(timeIntervalSince1970: 1_700_000_000.5)
        let decision = resolver.resolve(
            .invalidToken(reason: "Unregistered", since: since), for: Self.claimed, expiration: nil, now: Self.now,
            jitter: 0.5)
        #expect(decision.invalidMark == OutcomeResolver.InvalidMark(reason: "Unregistered", since: 1_700_000_000_500))
    }
}
