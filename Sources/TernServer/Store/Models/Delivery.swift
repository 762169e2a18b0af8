import Foundation
import TernProtocol

/// Where one delivery stands in the outbox.
public enum DeliveryStatus: String, Codable, Sendable, CaseIterable {
    /// Waiting for a worker (first try, or a retry once `due_at` passes).
    case queued
    /// Claimed by a worker whose lease has not run out.
    case sending
    /// The provider accepted it.
    case sent
    /// Given up, with the reason.
    case failed
    /// The provider said the token is dead; the token is marked invalid.
    case invalidToken = "invalid_token"
}

/// A message as the outbox keeps it: what every delivery needs to be sent, and the fan-out's progress.
public struct StoredMessage: Sendable, Equatable {
    public var id: Int64
    /// The id operators and payloads see, e.g. `m_3fa2c1d9e8b7a6f5`.
    var publicId: String
    var projectId: Int64
    var resourceId: Int64?
    /// The request as accepted (canonical JSON), shown by the API.
    var content: String
    /// The audience as accepted (canonical JSON).
    var audience: String
    /// The payload up to the push id, and after it: `prefix + push id + suffix` is the APNs JSON.
    var payloadPrefix: Data
    var payloadSuffix: Data
    var pushType: String
    var priority: Int?
    /// Milliseconds since 1970; 0 means "now or never".
    var expiration: Int64?
    var collapseId: String?
    var topic: String?
    var environment: String
    /// The subscription id the fan-out continues after.
    var fanOutCursor: Int64
    /// Whether every subscription of the audience has been written out as a delivery.
    public var fanOutDone: Bool
    /// Deliveries written so far.
    public var total: Int64
    var createdAt: Int64

    init(
        id: Int64, publicId: String, projectId: Int64, resourceId: Int64?, content: String, audience: String,
        payloadPrefix: Data, payloadSuffix: Data, pushType: String, priority: Int?, expiration: Int64?,
        collapseId: String?, topic: String?, environment: String, fanOutCursor: Int64, fanOutDone: Bool,
        total: Int64, createdAt: Int64
    ) {
        self.id = id
        self.publicId = publicId
        self.projectId = projectId
        self.resourceId = resourceId
        self.content = content
        self.audience = audience
        self.payloadPrefix = payloadPrefix
        self.payloadSuffix = payloadSuffix
        self.pushType = pushType
        self.priority = priority
        self.expiration = expiration
        self.collapseId = collapseId
        self.topic = topic
        self.environment = environment
        self.fanOutCursor = fanOutCursor
        self.fanOutDone = fanOutDone
        self.total = total
        self.createdAt = createdAt
    }

    /// The id a device reports for one delivery: unique per device, so each delivery and open counts once.
    func pushId(deliveryId: Int64) -> String { "\(publicId).\(deliveryId)" }

    /// The payload of one delivery.
    func payload(deliveryId: Int64) -> Data {
        PushPayloadBuilder.Template(prefix: payloadPrefix, suffix: payloadSuffix)
            .payload(pushId: pushId(deliveryId: deliveryId))
    }
}

/// One device a message goes to, as the fan-out found it.
public struct DeliveryTarget: Sendable, Equatable {
    var subscriptionId: Int64
    var provider: String
    var token: String

    init(subscriptionId: Int64, provider: String, token: String) {
        self.subscriptionId = subscriptionId
        self.provider = provider
        self.token = token
    }
}

/// A delivery a worker claimed: it holds the lease until `attempt`'s outcome is recorded.
public struct ClaimedDelivery: Sendable, Equatable {
    public var id: Int64
    var messageId: Int64
    var subscriptionId: Int64
    var provider: String
    var token: String
    /// 1 on the first try; the outcome is recorded only for this attempt.
    var attempt: Int

    init(id: Int64, messageId: Int64, subscriptionId: Int64, provider: String, token: String, attempt: Int) {
        self.id = id
        self.messageId = messageId
        self.subscriptionId = subscriptionId
        self.provider = provider
        self.token = token
        self.attempt = attempt
    }
}

/// What to write for a claimed delivery.
public struct DeliveryUpdate: Sendable, Equatable {
    public var id: Int64
    var attempt: Int
    var status: DeliveryStatus
    var reason: String?
    var providerMessageId: String?
    /// For `queued`: when to try again (ms since 1970).
    var dueAt: Int64?

    init(
        id: Int64, attempt: Int, status: DeliveryStatus, reason: String? = nil, providerMessageId: String? = nil,
        dueAt: Int64? = nil
    ) {
        self.id = id
        self.attempt = attempt
        self.status = status
        self.reason = reason
        self.providerMessageId = providerMessageId
        self.dueAt = dueAt
    }
}

/// A push subscription the fan-out considers, with its token's invalid mark if any.
public struct AudienceCandidate: Sendable, Equatable {
    var subscription: Subscription
    /// When the token was marked invalid (ms since 1970), if it was.
    var invalidMarkedAt: Int64?

    init(subscription: Subscription, invalidMarkedAt: Int64?) {
        self.subscription = subscription
        self.invalidMarkedAt = invalidMarkedAt
    }

    var tokenIsInvalid: Bool {
        PushState.isInvalid(markedAt: invalidMarkedAt, subscriptionWrittenAt: subscription.updatedAt)
    }
}

/// A subscription as the sender sees it at claim time.
public struct PushState: Sendable, Equatable {
    var status: SubscriptionStatus
    var provider: String
    var token: String
    var updatedAt: Int64
    var invalidMarkedAt: Int64?
    var invalidReason: String?
    /// The environment the SDK said the token belongs to; nil when it never said.
    var apnsEnvironment: APNsEnvironment?

    init(
        status: SubscriptionStatus, provider: String, token: String, updatedAt: Int64, invalidMarkedAt: Int64? = nil,
        invalidReason: String? = nil, apnsEnvironment: APNsEnvironment? = nil
    ) {
        self.status = status
        self.provider = provider
        self.token = token
        self.updatedAt = updatedAt
        self.invalidMarkedAt = invalidMarkedAt
        self.invalidReason = invalidReason
        self.apnsEnvironment = apnsEnvironment
    }

    /// The gateway this subscription's push goes through: the environment its SDK said, else the
    /// message's (`environment`, production unless the message said sandbox).
    func environment(messageEnvironment: String) -> APNsEnvironment {
        apnsEnvironment ?? APNsEnvironment(rawValue: messageEnvironment) ?? .production
    }

    var tokenIsInvalid: Bool { Self.isInvalid(markedAt: invalidMarkedAt, subscriptionWrittenAt: updatedAt) }

    /// A token's invalid mark counts until the subscription is written again (the SDK's next
    /// subscribe or token update), for the fan-out and the sender alike.
    static func isInvalid(markedAt: Int64?, subscriptionWrittenAt: Int64) -> Bool {
        guard let markedAt else { return false }
        return markedAt >= subscriptionWrittenAt
    }
}

/// A delivery as the API lists it.
public struct DeliveryRow: Codable, Sendable, Equatable {
    public var id: Int64
    var subscriptionId: Int64
    var provider: String
    var status: DeliveryStatus
    var attempts: Int
    var reason: String?
    var providerMessageId: String?
    var updatedAt: Int64

    init(
        id: Int64, subscriptionId: Int64, provider: String, status: DeliveryStatus, attempts: Int, reason: String?,
        providerMessageId: String?, updatedAt: Int64
    ) {
        self.id = id
        self.subscriptionId = subscriptionId
        self.provider = provider
        self.status = status
        self.attempts = attempts
        self.reason = reason
        self.providerMessageId = providerMessageId
        self.updatedAt = updatedAt
    }

    enum CodingKeys: String, CodingKey {
        case id, provider, status, attempts, reason
        case subscriptionId = "subscription_id"
        case providerMessageId = "provider_message_id"
        case updatedAt = "updated_at"
    }
}
