import Foundation

/// A project's webhook as stored, with how its posts are going.
public struct StoredWebhook: Sendable, Equatable {
    var id: Int64
    var projectId: Int64
    var url: String
    var secret: String
    var events: [WebhookEventType]
    var createdAt: Int64
    var pending: Int64
    var dropped: Int64
    var lastStatus: Int?
    var lastError: String?
    var lastAttemptAt: Int64?
    var lastSuccessAt: Int64?
}

/// An event claimed for a post: its row's id (the event's id), its JSON, when it was made, and
/// how many posts of it failed.
public struct ClaimedWebhookEvent: Sendable, Equatable {
    var id: Int64
    var body: String
    var createdAt: Int64
    var attempts: Int = 0
}

/// Webhooks and their outbox: each event is a row per webhook that wants it, written in the
/// transaction of what it reports (an outcome, a device's report), so none is lost and none is
/// made twice; a sender claims a webhook's due rows for a lease, posts them, and deletes them
/// once the receiver answered 2xx, or puts them off.
public protocol WebhookQueries {
    /// Each project's webhooks' event types (``WebhookDirectory``).
    func webhookTypes() throws -> [Int64: Set<WebhookEventType>]
    /// Stores a webhook; answers its id.
    func insertWebhook(projectId: Int64, url: String, secret: String, events: [WebhookEventType], now: Int64) throws
        -> Int64
    /// The project's webhooks (every project's for nil), oldest first, with their waiting events.
    func webhooks(projectId: Int64?) throws -> [StoredWebhook]
    /// The webhooks with events due at `now` (the dispatcher's round; counts nothing).
    func webhooksDue(now: Int64) throws -> [StoredWebhook]
    /// Removes the project's webhook and its waiting events; false when it has none of that id.
    func deleteWebhook(projectId: Int64, id: Int64) throws -> Bool
    /// An event for each of `bodies`, for each webhook of the project that wants `type`.
    func enqueueWebhookEvents(projectId: Int64, type: WebhookEventType, bodies: [String], now: Int64) throws
    /// An event for each webhook that wants `type` of the project that sent message `messageId`
    /// (its public id).
    func enqueueWebhookEvent(messageId: String, type: WebhookEventType, body: String, now: Int64) throws
    /// An event for one webhook, due now (a test event); false when the project has no such webhook.
    func enqueueWebhookEvent(projectId: Int64, webhookId: Int64, body: String, now: Int64) throws -> Bool
    /// Up to `limit` of the webhook's events due at `now`, oldest first, out of other claims until
    /// `leaseUntil` (on PostgreSQL, rows another node holds are skipped).
    func claimWebhookEvents(webhookId: Int64, limit: Int, now: Int64, leaseUntil: Int64) throws
        -> [ClaimedWebhookEvent]
    /// The receiver took these events: they go, and the webhook's last post is a success.
    func webhookPosted(webhookId: Int64, eventIds: [Int64], status: Int, now: Int64) throws
    /// The post failed: the events are tried again at `retryAt`, except those made before
    /// `givenUpBefore`, which go and are counted as dropped; answers how many went.
    func webhookFailed(
        webhookId: Int64, eventIds: [Int64], status: Int, error: String, now: Int64, retryAt: Int64,
        givenUpBefore: Int64
    ) throws -> Int
}
