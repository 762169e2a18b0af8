import Foundation
import TernProtocol

/// A message's deliveries by status, live while it is being sent.
public struct DeliveryCounts: Codable, Sendable, Equatable {
    /// Deliveries written so far (every device the audience reached).
    public var total: Int64
    /// Deliveries waiting for their turn or for a retry.
    public var queued: Int64
    /// Deliveries a node has claimed and is sending now.
    public var sending: Int64
    /// Deliveries the provider accepted.
    public var sent: Int64
    /// Deliveries the provider refused for good, or whose retries ran out.
    public var failed: Int64
    /// Deliveries the provider refused because the token is no longer valid (the token is marked so).
    public var invalidToken: Int64

    init(total: Int64, byStatus: [DeliveryStatus: Int64]) {
        self.total = total
        queued = byStatus[.queued] ?? 0
        sending = byStatus[.sending] ?? 0
        sent = byStatus[.sent] ?? 0
        failed = byStatus[.failed] ?? 0
        invalidToken = byStatus[.invalidToken] ?? 0
    }

    /// Deliveries with an outcome.
    public var finished: Int64 { sent + failed + invalidToken }

    /// The count of deliveries in `status`.
    subscript(status: DeliveryStatus) -> Int64 {
        switch status {
        case .queued: queued
        case .sending: sending
        case .sent: sent
        case .failed: failed
        case .invalidToken: invalidToken
        }
    }

    enum CodingKeys: String, CodingKey {
        case total, queued, sending, sent, failed
        case invalidToken = "invalid_token"
    }
}

/// `GET /api/v1/admin/messages/{message_id}`: the message as accepted, and where its sending stands.
public struct MessageView: Encodable, Sendable {
    public var id: String
    var projectId: Int64
    var resourceId: Int64?
    var createdAt: Int64
    var pushType: String
    var environment: String
    var request: MessageRequest
    /// False while the audience is still being turned into deliveries.
    public var fanOutDone: Bool
    /// True when the fan-out is done and no delivery is queued or being sent.
    var done: Bool
    var counts: DeliveryCounts
    /// When an operator cancelled it (ms since 1970); absent while it goes on.
    var cancelledAt: Int64?
    /// When it is to be sent, for a scheduled message (ms since 1970).
    var sendAt: Int64?
    /// For an A/B test of part of the audience: the message that sent its winner to the rest.
    var winnerMessageId: String?
    /// For an A/B test with `winner_after_minutes`: when the server picks its winner and sends it
    /// (ms since 1970); absent once one was sent, or when the test was cancelled.
    var winnerDueAt: Int64?
    /// For a recurring message: when its next copy goes (ms since 1970); absent once none is left.
    var nextCopyAt: Int64? = nil
    /// For a copy of a recurring message: that message's id.
    var recurringOf: String? = nil
    /// For a triggered message with re-entry: the rounds it has made, itself included (round n
    /// is message `<id>-n`).
    var triggerRounds: Int? = nil
    /// For a round of a triggered message: that message's id, and the round.
    var triggerRoundOf: String? = nil
    var triggerRound: Int? = nil
    /// When an operator last replaced its request before it went (ms since 1970); null until then.
    var editedAt: Int64? = nil

    enum CodingKeys: String, CodingKey {
        case id, request, done, counts
        case triggerRounds = "trigger_rounds"
        case triggerRoundOf = "trigger_round_of"
        case triggerRound = "trigger_round"
        case winnerDueAt = "winner_due_at"
        case nextCopyAt = "next_copy_at"
        case recurringOf = "recurring_of"
        case editedAt = "edited_at"
        case cancelledAt = "cancelled_at"
        case sendAt = "send_at"
        case winnerMessageId = "winner_message_id"
        case projectId = "project_id"
        case resourceId = "resource_id"
        case createdAt = "created_at"
        case pushType = "push_type"
        case environment
        case fanOutDone = "fan_out_done"
    }
}

/// `GET /api/v1/admin/messages/{message_id}/stats`: the funnel from devices targeted to opens. The
/// deliveries' counts are its ``DeliveryCounts`` (their total is `targeted`); the rest is what the
/// devices reported.
public struct MessageStats: Codable, Sendable, Equatable {
    /// The message's public id.
    public var messageId: String
    var counts: DeliveryCounts
    /// Failed deliveries per reason.
    public var failedByReason: [String: Int64]
    /// Devices whose extension reported the push (`event/push` delivery).
    public var delivered: Int64
    /// Devices that opened it (`event/push` open).
    public var opened: Int64
    /// Devices that opened it and then reached a goal that names the push (`send_message_id`).
    public var converted: Int64 = 0
    /// Devices of the audience skipped because their person turned the message's category off for push.
    public var skippedByPreference: Int64
    /// Devices of the audience skipped because their person had reached the project's frequency cap.
    public var skippedByFrequencyCap: Int64 = 0
    /// True when the fan-out has finished and no delivery is queued or sending: the figures are final.
    public var done: Bool
    /// When the message's deliveries and the devices' reports began to be removed
    /// (`--delivery-retention-days`; ms since 1970), nil while they are kept. The figures above
    /// are the ones kept then.
    public var deliveriesRemovedAt: Int64?
    /// When an operator cancelled the message (ms since 1970); nil unless it was. Its deliveries not
    /// sent by then count as failed, with the reason that says so.
    public var cancelledAt: Int64?
    /// An A/B test's figures per version, in the request's order; nil for a message of one version.
    public var variants: [VariantStats]?
    /// A triggered message with re-entry: its rounds' figures summed (the figures above are its
    /// first round's, the message's own); nil for any other message.
    public var allRounds: RoundTotals?
    /// A message with a control group (`control_percent`): both groups' people and conversions,
    /// and the uplift; nil for any other message.
    public var controlGroup: ControlGroupStats?

    init(
        messageId: String, counts: DeliveryCounts, failedByReason: [String: Int64], delivered: Int64,
        opened: Int64, done: Bool, skippedByPreference: Int64 = 0
    ) {
        self.skippedByPreference = skippedByPreference
        self.messageId = messageId
        self.counts = counts
        self.failedByReason = failedByReason
        self.delivered = delivered
        self.opened = opened
        self.done = done
    }

    /// Devices the audience reached (one delivery each).
    public var targeted: Int64 { counts.total }
    /// Deliveries waiting for their turn or for a retry.
    public var queued: Int64 { counts.queued }
    /// Deliveries being sent now.
    public var sending: Int64 { counts.sending }
    /// Deliveries the provider accepted.
    public var sent: Int64 { counts.sent }
    /// Deliveries refused for good or out of retries (per reason in ``failedByReason``).
    public var failed: Int64 { counts.failed }
    /// Deliveries refused because the token is no longer valid.
    public var invalidToken: Int64 { counts.invalidToken }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(messageId, forKey: .messageId)
        try container.encode(targeted, forKey: .targeted)
        for (status, key) in Self.statusKeys { try container.encode(counts[status], forKey: key) }
        try container.encode(failedByReason, forKey: .failedByReason)
        try container.encode(delivered, forKey: .delivered)
        try container.encode(opened, forKey: .opened)
        try container.encode(converted, forKey: .converted)
        try container.encode(skippedByPreference, forKey: .skippedByPreference)
        try container.encode(skippedByFrequencyCap, forKey: .skippedByFrequencyCap)
        try container.encode(done, forKey: .done)
        try container.encodeIfPresent(deliveriesRemovedAt, forKey: .deliveriesRemovedAt)
        try container.encodeIfPresent(cancelledAt, forKey: .cancelledAt)
        try container.encodeIfPresent(variants, forKey: .variants)
        try container.encodeIfPresent(allRounds, forKey: .allRounds)
        try container.encodeIfPresent(controlGroup, forKey: .controlGroup)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        var byStatus: [DeliveryStatus: Int64] = [:]
        for (status, key) in Self.statusKeys { byStatus[status] = try container.decode(Int64.self, forKey: key) }
        self.init(
            messageId: try container.decode(String.self, forKey: .messageId),
            counts: DeliveryCounts(total: try container.decode(Int64.self, forKey: .targeted), byStatus: byStatus),
            failedByReason: try container.decode([String: Int64].self, forKey: .failedByReason),
            delivered: try container.decode(Int64.self, forKey: .delivered),
            opened: try container.decode(Int64.self, forKey: .opened),
            done: try container.decode(Bool.self, forKey: .done),
            skippedByPreference: try container.decodeIfPresent(Int64.self, forKey: .skippedByPreference) ?? 0)
        deliveriesRemovedAt = try container.decodeIfPresent(Int64.self, forKey: .deliveriesRemovedAt)
        cancelledAt = try container.decodeIfPresent(Int64.self, forKey: .cancelledAt)
        skippedByFrequencyCap = try container.decodeIfPresent(Int64.self, forKey: .skippedByFrequencyCap) ?? 0
        converted = try container.decodeIfPresent(Int64.self, forKey: .converted) ?? 0
        variants = try container.decodeIfPresent([VariantStats].self, forKey: .variants)
        allRounds = try container.decodeIfPresent(RoundTotals.self, forKey: .allRounds)
        controlGroup = try container.decodeIfPresent(ControlGroupStats.self, forKey: .controlGroup)
    }

    /// Where each status's count goes.
    private static let statusKeys: [(DeliveryStatus, CodingKeys)] = [
        (.queued, .queued), (.sending, .sending), (.sent, .sent), (.failed, .failed), (.invalidToken, .invalidToken),
    ]

    enum CodingKeys: String, CodingKey {
        case targeted, queued, sending, sent, failed, delivered, opened, converted, done
        case messageId = "message_id"
        case failedByReason = "failed_by_reason"
        case invalidToken = "invalid_token"
        case skippedByPreference = "skipped_by_preference"
        case skippedByFrequencyCap = "skipped_by_frequency_cap"
        case deliveriesRemovedAt = "deliveries_removed_at"
        case cancelledAt = "cancelled_at"
        case variants
        case allRounds = "all_rounds"
        case controlGroup = "control_group"
    }
}

/// One version of an A/B test in its message's stats: its share, its devices, their reports.
public struct VariantStats: Codable, Sendable, Equatable {
    /// Its letter, `a` for the first version; its pushes' ids carry it (`m_3fa2.b.17`).
    public var variant: String
    /// Its share of the audience.
    public var percent: Int
    /// Its devices (one delivery each).
    public var targeted: Int64
    /// Its devices whose extension reported the push.
    public var delivered: Int64
    /// Its devices that opened it.
    public var opened: Int64
    /// Its devices that opened it and then reached a goal naming the push.
    public var converted: Int64 = 0
}
