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
