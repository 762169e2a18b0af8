import Foundation
import TernProtocol

/// The outbox's two lanes: changes that must reach the server in the order they were made, one at a
/// time; and events, sent in batches.
public enum OutboxLane: String, Sendable, Codable, CaseIterable {
    case ordered
    case events
}

/// What the sender needs to know about a row besides its body: which events to raise, whether to
/// retry. Kept with the row, so a row written before a crash is reported the same way after it.
public struct OutboxMeta: Codable, Sendable, Equatable {
    /// The public function that made the request, e.g. `subscribe`.
    public var function: String
    /// The event kind (`module.name`) raised on success.
    public var success: String?
    /// The event kind raised on failure.
    public var failure: String?
    /// False: the success event's `profile` is nil, as the reference has it for `sync == false`.
    public var includeProfile: Bool
    /// False for requests that are sent once (status queries).
    public var retryable: Bool

    public init(
        function: String, success: (any SDKEvent)?, failure: (any SDKEvent)?, includeProfile: Bool = true,
        retryable: Bool = true
    ) {
        self.function = function
        self.success = success?.description
        self.failure = failure?.description
        self.includeProfile = includeProfile
        self.retryable = retryable
    }
}

/// A request to put in the outbox. Public for Tern's modules.
public struct OutboxEntry: Sendable {
    public var endpoint: Endpoint
    public var lane: OutboxLane
    /// The JSON body; for the events lane, one item of the batch's `events` array.
    public var body: Data
    public var meta: OutboxMeta
    /// True when `provider` and `subscription_id` are filled in with the device's token when the row
    /// is first sent (a change made before the token arrived waits for it).
    public var needsToken: Bool
    /// Rows not sent within this many seconds are dropped (status queries); nil keeps them.
    public var expiresAfter: TimeInterval?
    /// Sent as `Idempotency-Key`; made when the app made the call.
    public var idempotencyKey: String

    public init(
        endpoint: Endpoint, lane: OutboxLane, body: Data, meta: OutboxMeta, needsToken: Bool = false,
        expiresAfter: TimeInterval? = nil, idempotencyKey: String = UUID().uuidString
    ) {
        self.idempotencyKey = idempotencyKey
        self.endpoint = endpoint
        self.lane = lane
        self.body = body
        self.meta = meta
        self.needsToken = needsToken
        self.expiresAfter = expiresAfter
    }
}

/// One row of the outbox.
public struct OutboxRow: Sendable, Equatable {
    public var id: Int64
    public var lane: OutboxLane
    public var endpoint: Endpoint
    public var body: Data
    /// Sent as `Idempotency-Key`; made when the row was written.
    public var idempotencyKey: String
    /// The key of the sealed batch this event row belongs to.
    public var batchKey: String?
    public var needsToken: Bool
    public var meta: OutboxMeta
    public var attempts: Int
    public var createdAt: Date
    public var firstAttemptAt: Date?
    public var nextAttemptAt: Date
    public var expiresAt: Date?
}

/// What the sender should do next in one lane.
enum OutboxWork: Sendable {
    /// Send these rows now: one ordered row, or one batch of event rows of the same endpoint.
    case send([OutboxRow])
    /// Nothing is due before this date.
    case waitUntil(Date)
    case empty
}

/// Totals kept by the outbox, for diagnostics and the simulated device.
public struct OutboxStatistics: Sendable, Equatable {
    /// Rows waiting, per lane.
    public var pending: [OutboxLane: Int]
    /// Rows ever written (kept across restarts; reset by `clear`).
    public var enqueuedTotal: Int
    /// Rows the server acknowledged.
    public var acknowledgedTotal: Int
    /// Rows dropped after a refusal or when the retry budget ran out.
    public var droppedTotal: Int
}
