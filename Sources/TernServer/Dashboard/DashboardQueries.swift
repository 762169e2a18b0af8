import Foundation

/// What the dashboard reads beyond the services' own queries: counts for the overview, the newest
/// messages, and the test devices.
public protocol DashboardQueries {
    /// Subscriptions counted per resource, channel, provider and status.
    func subscriptionCounts() throws -> [SubscriptionCount]
    /// The subscriptions a push can go to (`pushable`) counted per resource and by the notification
    /// permission their device reported (`_push_permission`; nil where none was reported).
    func permissionCounts() throws -> [PermissionCount]
    /// Messages created at or after `since` (ms), per UTC day, oldest day first; a project's, or all.
    func messageDays(since: Int64, projectId: Int64?) throws -> [MessageDay]
    /// Messages newest first, with ids below `beforeId` (0: from the newest), that `filter`'s state,
    /// kind, times and project let through, their states as they are at `now` (ms). Its text narrows
    /// the list by a pattern a little wider than the text: the caller checks each message.
    func messages(matching filter: MessageListFilter, beforeId: Int64, limit: Int, now: Int64) throws
        -> [StoredMessage]
    /// Public ids of the profiles marked as test devices, oldest first; a project's, or all.
    func testProfileIds(limit: Int, projectId: Int64?) throws -> [String]
    /// A profile's push events (delivery, open), newest first: those its callers reported, and those
    /// of the deliveries to its subscriptions (an rToken-only device reports without naming a profile).
    func pushEvents(profileId: Int64, limit: Int) throws -> [PushEventRecord]
}

/// One group of `GET /api/v1/admin/overview`'s subscription counts.
public struct SubscriptionCount: Codable, Sendable, Equatable {
    var resourceId: Int64
    var channel: String
    var provider: String
    var status: String
    var count: Int64

    enum CodingKeys: String, CodingKey {
        case channel, provider, status, count
        case resourceId = "resource_id"
    }
}

/// One group of `GET /api/v1/admin/overview`'s permission counts: a token stays valid when its
/// person turns notifications off in Settings, so a subscribed device is not one that shows alerts.
public struct PermissionCount: Codable, Sendable, Equatable {
    var resourceId: Int64
    /// `authorized`, `provisional`, `ephemeral`, `denied`, `not_determined`; nil: not reported (an
    /// SDK before the report, or a device that has not been to the foreground since).
    var permission: String?
    var count: Int64

    enum CodingKeys: String, CodingKey {
        case permission, count
        case resourceId = "resource_id"
    }

    /// `permission` is always there, null when not reported (the synthesized form would leave it out).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(resourceId, forKey: .resourceId)
        try container.encode(permission, forKey: .permission)
        try container.encode(count, forKey: .count)
    }
}

/// Messages sent on one UTC day: how many, and how many devices they targeted.
public struct MessageDay: Codable, Sendable, Equatable {
    /// `YYYY-MM-DD`.
    var day: String
    var messages: Int64
    var targeted: Int64
}
