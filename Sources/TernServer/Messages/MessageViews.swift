import Foundation
import TernProtocol

/// A message's deliveries by status, live while it is being sent.
public struct DeliveryCounts: Codable, Sendable, Equatable {
    /// Deliveries written so far (every device the audience reached).
    public var total: Int64
    public var queued: Int64
    public var sending: Int64
    public var sent: Int64
    public var failed: Int64
    public var invalidToken: Int64

    public init(total: Int64, byStatus: [DeliveryStatus: Int64]) {
        self.total = total
        queued = byStatus[.queued] ?? 0
        sending = byStatus[.sending] ?? 0
        sent = byStatus[.sent] ?? 0
        failed = byStatus[.failed] ?? 0
        invalidToken = byStatus[.invalidToken] ?? 0
    }

    /// Deliveries with an outcome.
    public var finished: Int64 { sent + failed + invalidToken }

    enum CodingKeys: String, CodingKey {
        case total, queued, sending, sent, failed
        case invalidToken = "invalid_token"
    }
}

/// `GET /api/v1/admin/messages/{message_id}`: the message as accepted, and where its sending stands.
public struct MessageView: Encodable, Sendable {
    public var id: String
    public var projectId: Int64
    public var resourceId: Int64?
    public var createdAt: Int64
    public var pushType: String
    public var environment: String
    public var request: MessageRequest
    /// False while the audience is still being turned into deliveries.
    public var fanOutDone: Bool
    /// True when the fan-out is done and no delivery is queued or being sent.
    public var done: Bool
    public var counts: DeliveryCounts

    enum CodingKeys: String, CodingKey {
        case id, request, done, counts
        case projectId = "project_id"
        case resourceId = "resource_id"
        case createdAt = "created_at"
        case pushType = "push_type"
        case environment
        case fanOutDone = "fan_out_done"
    }
}

/// `GET /api/v1/admin/messages/{message_id}/stats`: the funnel from devices targeted to opens.
public struct MessageStats: Codable, Sendable, Equatable {
    public var messageId: String
    /// Devices the audience reached (one delivery each).
    public var targeted: Int64
    public var queued: Int64
    public var sending: Int64
    public var sent: Int64
    public var failed: Int64
    /// Failed deliveries per reason.
    public var failedByReason: [String: Int64]
    public var invalidToken: Int64
    /// Devices whose extension reported the push (`event/push` delivery).
    public var delivered: Int64
    /// Devices that opened it (`event/push` open).
    public var opened: Int64
    /// Devices of the audience skipped because their person turned the message's category off for push.
    public var skippedByPreference: Int64
    public var done: Bool

    public init(
        messageId: String, counts: DeliveryCounts, failedByReason: [String: Int64], delivered: Int64,
        opened: Int64, done: Bool, skippedByPreference: Int64 = 0
    ) {
        self.skippedByPreference = skippedByPreference
        self.messageId = messageId
        targeted = counts.total
        queued = counts.queued
        sending = counts.sending
        sent = counts.sent
        failed = counts.failed
        self.failedByReason = failedByReason
        invalidToken = counts.invalidToken
        self.delivered = delivered
        self.opened = opened
        self.done = done
    }

    enum CodingKeys: String, CodingKey {
        case targeted, queued, sending, sent, failed, delivered, opened, done
        case messageId = "message_id"
        case failedByReason = "failed_by_reason"
        case invalidToken = "invalid_token"
        case skippedByPreference = "skipped_by_preference"
    }
}
