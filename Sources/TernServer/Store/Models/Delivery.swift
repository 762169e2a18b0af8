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
    /// For an A/B test, the first version's.
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
    /// When an operator cancelled it (ms since 1970); nil while it goes on.
    var cancelledAt: Int64? = nil
    /// When it is to be sent (ms since 1970); nil for a message sent when it was made. Its fan-out
    /// waits until then.
    var sendAt: Int64? = nil
    /// An A/B test's versions, each with its payload; empty for a message of one version.
    var variants: [VariantPayload] = []
    /// The share of the audience an A/B test went to (the rest wait for the winner); nil: all.
    var variantSample: Int? = nil
    /// The public id of the message that sent this A/B test's winner to the devices it held back.
    var winnerMessageId: String? = nil
    /// When the server picks this A/B test's winner and sends it (ms since 1970), while it has none;
    /// nil: an operator picks it.
    var winnerDueAt: Int64? = nil
    /// A triggered message's goal, cancelling goal and delay (ms); nil for every other message.
    var triggerEvent: String? = nil
    var triggerCancelEvent: String? = nil
    var triggerDelay: Int64? = nil
    /// A recurring message's time between copies (ms), or its days of the week (`mon,thu`), its
    /// last time and its next (nil once it has none left); nil for every other message.
    var repeatEvery: Int64? = nil
    var repeatWeekdays: String? = nil
    var repeatUntil: Int64? = nil
    var repeatNextAt: Int64? = nil
    /// A copy of a recurring message: that message's public id.
    var recurringOf: String? = nil
    /// A triggered message's re-entry time (ms): how long after it went to a person their goal
    /// sends it again; nil: once a person.
    var triggerReentry: Int64? = nil
    /// A round of a triggered message (``TriggerRounds``): that message's public id, and the round
    /// (2 and on; the message itself is round 1).
    var triggerRoundOf: String? = nil
    var triggerRound: Int? = nil

    /// Whether it stands until cancelled, sent to each person whose goal comes: a triggered
    /// message, or one of its rounds.
    var isTriggered: Bool { triggerEvent != nil || triggerRoundOf != nil }

    /// When an operator last replaced its request (ms since 1970); nil until then.
    var editedAt: Int64? = nil

    /// The time its audience is read at: when it is sent.
    var sentFrom: Int64 { sendAt ?? createdAt }

    /// The id a device reports for one delivery: unique per device, so each delivery and open counts
    /// once; an A/B test's names the version too (`m_3fa2.b.17`), so its reports count by version.
    func pushId(deliveryId: Int64, variant: Int? = nil) -> String {
        Self.pushId(publicId: publicId, deliveryId: deliveryId, variant: variant)
    }

    /// ``pushId(deliveryId:variant:)`` of the message whose public id is `publicId`.
    static func pushId(publicId: String, deliveryId: Int64, variant: Int?) -> String {
        "\(publicId)\(MessageVariants.pushIdPart(variant)).\(deliveryId)"
    }

    /// The versions' shares of the 100 buckets.
    var variantSplit: MessageVariants.Split {
        MessageVariants.Split(percents: variants.map(\.percent), sample: variantSample)
    }

    /// Each bucket's version, as its letter (`aabab…`, 100 letters; a held-back bucket's is the last
    /// version's, unused); nil for a message of one version. Reports are checked against it in SQL.
    var variantLetters: String? {
        guard !variants.isEmpty else { return nil }
        let split = variantSplit
        return (0..<100).map { MessageVariants.letters[split.index(bucket: $0)] }.joined()
    }

    /// The version the device of `subscriptionId` gets; nil for a message of one version.
    func variant(subscriptionId: Int64) -> Int? {
        guard !variants.isEmpty else { return nil }
        return variantSplit.index(subscriptionId: subscriptionId, messageId: id)
    }

    /// The payload of one delivery: its version's (``variant(subscriptionId:)``), for an A/B test.
    func payload(deliveryId: Int64, variant: Int?) -> Data {
        guard let variant, variants.indices.contains(variant) else {
            return PushPayloadBuilder.Template(prefix: payloadPrefix, suffix: payloadSuffix)
                .payload(pushId: pushId(deliveryId: deliveryId))
        }
        let version = variants[variant]
        return PushPayloadBuilder.Template(prefix: version.prefix, suffix: version.suffix)
            .payload(pushId: pushId(deliveryId: deliveryId, variant: variant))
    }
}

/// One device a message goes to, as the fan-out found it.
public struct DeliveryTarget: Sendable, Equatable {
    var subscriptionId: Int64
    var provider: PushProvider
    var token: String

    /// A device: a message reaches it once, whichever of its subscriptions the audience names.
    struct Device: Hashable {
        var provider: PushProvider
        var token: String
    }

    var device: Device { Device(provider: provider, token: token) }
}

/// When a chunk's queued deliveries come due.
public enum DeliveryTiming: Sendable, Equatable {
    /// At once (when they are written).
    case now
    /// In turn, a throttled message's rate.
    case paced(DeliveryPace)
    /// Each at its subscription's own time (ms since 1970), a message sent at a local time of day;
    /// one missing from the map at once.
    case bySubscription([Int64: Int64])
}

/// When a throttled message's deliveries come due: `perMinute` a minute from `start`, in the order
/// the fan-out writes them, each second's share due at the second's start (a claim a second takes
/// them together, not one claim a delivery).
///
/// ```swift
/// let pace = DeliveryPace(start: 0, perMinute: 600, written: 0)
/// pace.due(9)    // 0: the first ten in the first second
/// pace.due(10)   // 1_000
/// ```
public struct DeliveryPace: Sendable, Equatable {
    /// The rates a message can be throttled to, a minute.
    static let perMinute = 1...1_000_000

    /// When the message is sent (ms since 1970): its first delivery is due then.
    public var start: Int64
    /// Deliveries a minute.
    public var perMinute: Int
    /// Deliveries the message had before this chunk: the next one written takes this place.
    public var written: Int64

    /// A message's pace from `start`, for a chunk written after `written` of its deliveries.
    public init(start: Int64, perMinute: Int, written: Int64) {
        self.start = start
        self.perMinute = perMinute
        self.written = written
    }

    /// When the delivery in `place` of the message's order (from 0) comes due.
    func due(_ place: Int64) -> Int64 {
        start + place * 60_000 / Int64(perMinute) / 1000 * 1000
    }

    /// When the chunk's delivery `offset` (from 0, in the order written) comes due.
    func due(offset: Int) -> Int64 { due(written + Int64(offset)) }
}

/// A delivery a worker claimed: it holds the lease until `attempt`'s outcome is recorded.
public struct ClaimedDelivery: Sendable, Equatable {
    public var id: Int64
    var messageId: Int64
    var subscriptionId: Int64
    var provider: PushProvider
    var token: String
    /// 1 on the first try; the outcome is recorded only for this attempt.
    var attempt: Int
}

/// What to write for a claimed delivery.
public struct DeliveryUpdate: Sendable, Equatable {
    public var id: Int64
    /// The delivery's message, as claimed: an outcome naming another message changes nothing.
    var messageId: Int64
    var attempt: Int
    var status: DeliveryStatus
    var reason: String?
    var providerMessageId: String?
    /// For `queued`: when to try again (ms since 1970).
    var dueAt: Int64?
}

/// A push subscription the fan-out considers, with its token's invalid mark if any. Its
/// subscription's custom fields and categories are empty unless the read asked for them
/// (``CandidateDetail``).
public struct AudienceCandidate: Sendable, Equatable {
    var subscription: Subscription
    /// When the token was marked invalid (ms since 1970), if it was.
    var invalidMarkedAt: Int64?

    var tokenIsInvalid: Bool {
        PushState.isInvalid(markedAt: invalidMarkedAt, subscriptionWrittenAt: subscription.updatedAt)
    }
}

/// What of a push candidate's subscription a read brings beyond its address, state and profile:
/// its custom fields and its categories, each a JSON object parsed for every candidate. An app's
/// subscriptions carry the fifteen or so fields Tern's SDK sends with every subscribe (the
/// device, the app, the sessions), and reading them for every device of a campaign was a quarter
/// of tern's CPU per delivery (docs/scaling.md, "A candidate's fields read only when its audience
/// asks"); an audience's filter asks for them only when it reads them (`AudienceFilter.reads`).
public struct CandidateDetail: OptionSet, Sendable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    /// The custom fields (`fields`).
    public static let fields = CandidateDetail(rawValue: 1)
    /// The categories (`cats`).
    public static let cats = CandidateDetail(rawValue: 2)
    /// Both.
    public static let all: CandidateDetail = [.fields, .cats]
}

/// A subscription as the sender sees it at claim time.
public struct PushState: Sendable, Equatable {
    var status: SubscriptionStatus
    var provider: PushProvider
    var token: String
    var updatedAt: Int64
    var invalidMarkedAt: Int64?
    var invalidReason: String?
    /// The environment the SDK said the token belongs to; nil when it never said.
    var apnsEnvironment: APNsEnvironment?

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
    var provider: PushProvider
    var status: DeliveryStatus
    var attempts: Int
    var reason: String?
    var providerMessageId: String?
    var updatedAt: Int64

    enum CodingKeys: String, CodingKey {
        case id, provider, status, attempts, reason
        case subscriptionId = "subscription_id"
        case providerMessageId = "provider_message_id"
        case updatedAt = "updated_at"
    }
}
