import Foundation

/// Every request the SDK makes: `POST /api/v1/<rawValue>` with a JSON body, answered with the
/// envelope (``ResponseModel/ResponseWithProfile``) and an HTTP status.
public enum Endpoint: String, CaseIterable, Sendable, Codable {
    case profileAuthenticate = "profile/authenticate"
    case pushSubscribe = "push/subscribe"
    case pushSuspend = "push/suspend"
    case pushUnsubscribe = "push/unsubscribe"
    case pushUpdate = "push/update"
    case pushStatus = "push/status"
    case pushUnsuspend = "push/unsuspend"
    case profileUpdate = "profile/update"
    case eventPost = "event/post"
    case eventPush = "event/push"
    /// Tags of the install's current binding (``TagsSetRequest``, ``TagsRemoveRequest``).
    case profileTagsSet = "profile/tags/set"
    case profileTagsRemove = "profile/tags/remove"
    /// The signed-in person's inbox (JWT only): what changed since a cursor (``InboxListRequest``).
    case inboxList = "inbox/list"
    /// Marks one message read on every device (``InboxMessageRequest``).
    case inboxRead = "inbox/read"
    /// Deletes one message from every device (``InboxMessageRequest``).
    case inboxDelete = "inbox/delete"
    /// The unread count (``InboxUnreadAnswer``).
    case inboxUnread = "inbox/unread"
    /// The signed-in person's preferences (JWT only; ``PreferencesAnswer``).
    case profilePreferencesGet = "profile/preferences/get"
    /// Sets preferences (``PreferencesSetRequest``).
    case profilePreferencesSet = "profile/preferences/set"
    /// Adds the signed-in person to a topic (``TopicRequest``).
    case profileTopicsFollow = "profile/topics/follow"
    /// Removes the signed-in person from a topic (``TopicRequest``).
    case profileTopicsUnfollow = "profile/topics/unfollow"

    /// The path on the server, e.g. `/api/v1/push/subscribe`.
    public var path: String { Wire.apiPrefix + rawValue }

    /// The HTTP method: every SDK endpoint takes a JSON body.
    public var method: String { "POST" }

    /// The subscription status a push status-change endpoint sets, nil for the others.
    public var subscriptionStatus: SubscriptionStatus? {
        switch self {
        case .pushSubscribe: .subscribed
        case .pushSuspend: .suspended
        case .pushUnsubscribe: .unsubscribed
        default: nil
        }
    }
}

/// Names the two halves agree on outside the bodies.
public enum Wire {
    /// Every SDK path starts here.
    public static let apiPrefix = "/api/v1/"
    /// The resource token, for anonymous, device-level requests.
    public static let rTokenHeader = "X-Tern-RToken"
    /// `Bearer <JWT>`, for requests on behalf of a known user.
    public static let authorizationHeader = "Authorization"
    /// The SDK's idempotency key: a repeated key is answered as the first request and applied once.
    public static let idempotencyKeyHeader = "Idempotency-Key"
    /// Longest idempotency key the server accepts.
    public static let maxIdempotencyKeyLength = 128
}
