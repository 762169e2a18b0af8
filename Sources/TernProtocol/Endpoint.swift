import Foundation

/// Every request the SDK makes: `POST /api/v1/<rawValue>` with a JSON body, answered with the
/// envelope (``ResponseModel/ResponseWithProfile``) and an HTTP status.
public enum Endpoint: String, CaseIterable, Sendable, Codable {
    /// `profile/authenticate`: links the device to the JWT's profile (`authenticate()`).
    case profileAuthenticate = "profile/authenticate"
    /// `push/subscribe`: sets the push subscription to `subscribed` (`subscription.subscribe(...)`).
    case pushSubscribe = "push/subscribe"
    /// `push/suspend`: sets it to `suspended`: nothing is delivered, no unsubscribe event is recorded.
    case pushSuspend = "push/suspend"
    /// `push/unsubscribe`: sets it to `unsubscribed`.
    case pushUnsubscribe = "push/unsubscribe"
    /// `push/update`: moves the subscription from the old token (or provider) to the new one.
    case pushUpdate = "push/update"
    /// `device/report`: the built-in fields of the install's binding (``DeviceReportRequest``):
    /// app version, language, sessions and foreground time.
    case deviceReport = "device/report"
    /// `push/status`: the profile's latest subscription, the current token's, or a provider's latest.
    case pushStatus = "push/status"
    /// `push/unsuspend`: suspends other profiles' subscriptions with this token and resumes the JWT
    /// profile's (`unSuspend(completion:)`, for log-in and log-out).
    case pushUnsuspend = "push/unsuspend"
    /// `profile/update`: changes profile fields (JWT only).
    case profileUpdate = "profile/update"
    /// `event/post`: goals (mobile events), in a batch.
    case eventPost = "event/post"
    /// `event/push`: push deliveries and opens, in a batch.
    case eventPush = "event/push"
    /// Tags of the install's current binding (``TagsSetRequest``, ``TagsRemoveRequest``).
    case profileTagsSet = "profile/tags/set"
    /// Removes tags of the install's current binding (``TagsRemoveRequest``).
    case profileTagsRemove = "profile/tags/remove"
    /// In-app subscription (channel `inapp`) set to subscribed (``InAppSubscriptionRequest``).
    case inAppSubscribe = "inapp/subscribe"
    /// In-app subscription set to unsubscribed (``InAppSubscriptionRequest``).
    case inAppUnsubscribe = "inapp/unsubscribe"
    /// The profile with its in-app subscription (``InAppStatusRequest``).
    case inAppStatus = "inapp/status"
    /// The campaigns this device may show (``InAppPlacementsRequest``, ``InAppPlacementsResponse``).
    case inAppPlacements = "inapp/placements"
    /// A campaign shown, clicked, closed or failed (``InAppEventRequest``).
    case inAppEvent = "inapp/event"
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

    /// A Live Activity's push token, or a push-to-start token (``LiveActivityTokenRequest``).
    case liveActivityToken = "live-activity/token"
    /// A Live Activity ended on the device, or its push-to-start token went (``LiveActivityEndRequest``).
    case liveActivityEnd = "live-activity/end"
    /// The APNs broadcast channel of a name, for iOS 18's channel Live Activities
    /// (``LiveActivityChannelRequest``, answered with ``LiveActivityChannelAnswer``).
    case liveActivityChannel = "live-activity/channel"

    /// Reads the installation's identity binding (``IdentityInstallationRequest``, answered with ``IdentityAnswer``).
    case identityStatus = "identity/status"
    /// Reads the binding and the project's identity policy together (the SDK's AUTO mode).
    case identityPolicy = "identity/policy"
    /// Changes the binding: a login or a logout of the journal (``IdentityChangeRequest``).
    case identityChange = "identity/change"

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
