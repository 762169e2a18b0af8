import Foundation

/// What the outbox records for a provider's answer: the delivery's new row, and whether its token
/// is to be marked invalid. Pure, so it is tested as a table.
///
/// ```swift
/// let resolver = OutcomeResolver(policy: DeliveryRetryPolicy())
/// let decision = resolver.resolve(.retry(after: 30, reason: "429 TooManyRequests"),
///                                 for: claimed, expiration: nil, now: now, jitter: 0.5)
/// // decision.update.status == .queued, dueAt == now + 30 000
/// ```
struct OutcomeResolver: Sendable {
    var policy: DeliveryRetryPolicy

    /// A token to mark invalid.
    struct InvalidMark: Sendable, Equatable {
        var reason: String
        /// The provider's moment (ms since 1970): a registration after it keeps the token valid.
        var since: Int64?

        init(reason: String, since: Int64?) {
            self.reason = reason
            self.since = since
        }
    }

    struct Decision: Sendable, Equatable {
        var update: DeliveryUpdate
        var invalidMark: InvalidMark?
    }

    /// `expiration`: the message's, in ms since 1970 (0: one attempt only; nil: none).
    func resolve(
        _ outcome: DeliveryOutcome, for delivery: ClaimedDelivery, expiration: Int64?, now: Int64, jitter: Double
    ) -> Decision {
        func update(_ status: DeliveryStatus, _ reason: String?, id: String? = nil, due: Int64? = nil) -> DeliveryUpdate
        {
            DeliveryUpdate(
                id: delivery.id, messageId: delivery.messageId, attempt: delivery.attempt, status: status,
                reason: reason.map(Self.clip),
                providerMessageId: id, dueAt: due)
        }
        switch outcome {
        case .sent(let providerMessageId):
            return Decision(update: update(.sent, nil, id: providerMessageId), invalidMark: nil)
        case .failed(let reason):
            return Decision(update: update(.failed, reason), invalidMark: nil)
        case .invalidToken(let reason, let since):
            let sinceMs = since.map { Int64(($0.timeIntervalSince1970 * 1000).rounded()) }
            return Decision(
                update: update(.invalidToken, reason),
                invalidMark: InvalidMark(reason: Self.clip(reason), since: sinceMs))
        case .retry(let after, let reason):
            guard let delay = policy.delay(afterAttempt: delivery.attempt, retryAfter: after, jitter: jitter) else {
                return Decision(
                    update: update(.failed, "gave up after \(delivery.attempt) attempts: \(reason)"), invalidMark: nil)
            }
            let due = now + Int64((delay * 1000).rounded())
            if let expiration, expiration == 0 || due > expiration {
                return Decision(
                    update: update(.failed, "expired: its time to live ran out before a retry (\(reason))"),
                    invalidMark: nil)
            }
            return Decision(update: update(.queued, "retrying: \(reason)", due: due), invalidMark: nil)
        }
    }

    /// Reasons are grouped in statistics and metrics: keep them short.
    static func clip(_ reason: String) -> String {
        reason.count <= 200 ? reason : String(reason.prefix(200))
    }
}
