import Foundation
import TernProtocol

/// The outbox's two lanes: changes that must reach the server in the order they were made, one at a
/// time; and events, sent in batches.
public enum OutboxLane: String, Sendable, Codable, CaseIterable {
    /// Subscription, token, profile and tags changes: sent one at a time, in the order they were made.
    case ordered
    /// Push events and goals: sent in batches, in any order.
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

    /// Describes how a request's outcome is reported.
    ///
    /// - Parameters:
    ///   - function: The public function that made the request, e.g. `subscribe`.
    ///   - success: The event raised when the server accepts it; nil raises none.
    ///   - failure: The event raised when it fails (a ``RetryEvent`` while it is retried).
    ///   - includeProfile: Whether the success event's `value` carries the answer's `profile`; default true.
    ///   - retryable: Whether a failure is retried; default true (false for status queries).
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
    /// Where the request goes, e.g. `push/subscribe`.
    public var endpoint: Endpoint
    /// Which lane sends it: ordered changes or batched events.
    public var lane: OutboxLane
    /// The JSON body; for the events lane, one item of the batch's `events` array.
    public var body: Data
    /// How its outcome is reported.
    public var meta: OutboxMeta
    /// True when `provider` and `subscription_id` are filled in with the device's token when the row
    /// is first sent (a change made before the token arrived waits for it).
    public var needsToken: Bool
    /// Rows not sent within this many seconds are dropped (status queries); nil keeps them.
    public var expiresAfter: TimeInterval?
    /// Sent as `Idempotency-Key`; made when the app made the call.
    public var idempotencyKey: String

    /// Describes a request for the outbox.
    ///
    /// - Parameters:
    ///   - endpoint: Where it goes.
    ///   - lane: Which lane sends it.
    ///   - body: The JSON body (for the events lane, one item of the batch's `events`).
    ///   - meta: How its outcome is reported.
    ///   - needsToken: Whether the device's token is filled in when it is first sent; default false.
    ///   - expiresAfter: Seconds after which an unsent row is dropped; default nil (kept until sent).
    ///   - idempotencyKey: Sent as `Idempotency-Key`; default a new time-ordered UUID (`RequestKey`).
    public init(
        endpoint: Endpoint, lane: OutboxLane, body: Data, meta: OutboxMeta, needsToken: Bool = false,
        expiresAfter: TimeInterval? = nil, idempotencyKey: String = RequestKey.make()
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
    /// The lane that sends the row.
    public var lane: OutboxLane
    /// Where the row goes.
    public var endpoint: Endpoint
    /// The JSON body as written (the token is filled in at send time when ``needsToken`` is true).
    public var body: Data
    /// Sent as `Idempotency-Key`; made when the row was written.
    public var idempotencyKey: String
    /// The key of the sealed batch this event row belongs to.
    public var batchKey: String?
    /// Whether the device's token is filled in when the row is sent.
    public var needsToken: Bool
    /// How the row's outcome is reported.
    public var meta: OutboxMeta
    /// Attempts made so far.
    public var attempts: Int
    /// When the row was written.
    public var createdAt: Date
    /// When it was first sent; nil before. The retry budget counts from here.
    public var firstAttemptAt: Date?
    /// When it may be sent next.
    public var nextAttemptAt: Date
    /// When an unsent row is dropped; nil for never.
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
