import Foundation
import TernCore

/// Events of the push module: tokens, subscriptions, notifications, push events.
public enum PushModuleEvents: String, SDKEvent, CaseIterable, Equatable {
    /// A push token was saved for a provider; the message ends with the provider's name, e.g.
    /// "push provider set: ios-apns".
    case pushProviderSet
    /// A Tern push reached the app in the foreground or the Notification Service Extension.
    /// Message: "received Altcraft push notification."
    case pushReceive
    /// The Notification Service Extension handed a Tern push to the system to show.
    /// Message: "push is posted."
    case pushIsPosted
    /// A request waits for the push token (it is being fetched or updated) and is sent once the token is
    /// known. Message: "waiting for push token update to complete".
    case pushTokenUpdateAwait
    /// `subscription.subscribe(...)` succeeded (`push/subscribe`). `value` holds `http_code`, `error`,
    /// `error_text` and, when `sync` was true, `profile` (a `ProfileData`).
    /// Message: "successful request: push/subscribe".
    case pushSubscribeRequestSuccessful
    /// `subscription.subscribe(...)` failed; a `RetryEvent` when the SDK retries (5xx or no answer), an
    /// `ErrorEvent` otherwise. `value` holds `http_code`, and `error`/`error_text` when the server
    /// answered. Message: "failed request: push/subscribe".
    case pushSubscribeRequestFailed
    /// `subscription.suspend(...)` succeeded (`push/suspend`); `value` as for
    /// ``pushSubscribeRequestSuccessful``. Message: "successful request: push/suspend".
    case pushSuspendRequestSuccessful
    /// `subscription.suspend(...)` failed; retried like ``pushSubscribeRequestFailed``.
    /// Message: "failed request: push/suspend".
    case pushSuspendRequestFailed
    /// `subscription.unsubscribe(...)` succeeded (`push/unsubscribe`); `value` as for
    /// ``pushSubscribeRequestSuccessful``. Message: "successful request: push/unsubscribe".
    case pushUnsubscribeRequestSuccessful
    /// `subscription.unsubscribe(...)` failed; retried like ``pushSubscribeRequestFailed``.
    /// Message: "failed request: push/unsubscribe".
    case pushUnsubscribeRequestFailed
    /// The subscription moved to the device's new push token (`push/update`).
    /// Message: "successful request: push/update".
    case tokenUpdateRequestSuccessful
    /// Moving the subscription to the new push token failed (`push/update`); a `RetryEvent` when the
    /// SDK retries. Message: "failed request: push/update".
    case tokenUpdateRequestFailed
    /// A status call (`latest`, `current`, `latestForProvider`) was answered (`push/status`).
    /// Message: "successful request: push/status".
    case pushStatusRequestSuccessful
    /// A status call failed (`push/status`); status calls are not retried, their completion gets nil.
    /// Message: "failed request: push/status".
    case pushStatusRequestFailed
    /// `subscription.unSuspend(completion:)` was answered (`push/unsuspend`): the subscriptions of other
    /// profiles with this token are suspended, the JWT profile's are resumed.
    /// Message: "successful request: push/unsuspend".
    case unsuspendRequestSuccessful
    /// `subscription.unSuspend(completion:)` failed (`push/unsuspend`).
    /// Message: "failed request: push/unsuspend".
    case unsuspendRequestFailed
    /// A push's delivery or open event reached the server (`event/push`).
    /// Message: "successful request: event/push".
    case pushEventRequestSuccessful
    /// A push's delivery or open event could not be reported (`event/push`); a `RetryEvent` when the
    /// SDK retries. Message: "failed request: event/push".
    case pushEventRequestFailed
    /// An error: the provider priority list names no known provider.
    /// Message: "invalid provider. Available - ios-apns, ios-firebase, ios-huawei."
    case invalidPushProviders
    /// An error: a call named a provider that is not `ios-apns`, `ios-firebase` or `ios-huawei`.
    /// Message: "invalid provider."
    case invalidPushProvider
    /// An error: a push's `userInfo` is not in Tern's format (its `tern` object is missing parts or
    /// malformed). Message: "invalid userInfo format".
    case errorHandleUserInfo
    /// An error: a push has no message id, so its delivery or open cannot be reported.
    /// Message: "uid in the push data is null, it is impossible to send a push event to the server."
    case uidIsNil
    /// An error: the push's media could not be downloaded (refused, too large, timed out, wrong type);
    /// the push is shown without it. Message: "could not download image data from URL."
    case errorMediaDownload
    /// An error: the push's `media` key is missing where expected or its URL is invalid.
    /// Message: "'media' key is missing or URL string is invalid."
    case errorMediaKeyMissing
    /// An error: the push's `buttons` key is not a valid list of buttons; the push is shown without
    /// buttons. Message: "'buttons' key is missing or is invalid."
    case errorButtonsKeyMissing
    /// An error: a button's identifier is invalid; `value` names it.
    /// Message: "invalid button identifier. See event value".
    case invalidButtonIdentifier
    /// An error: a button index is out of range (more buttons than a notification shows); `value` names
    /// it. Message: "out of range for identifier. See event value".
    case outOfRangeForIdentifier
    /// An error: a tapped action matches no button of the push; `value` names it.
    /// Message: "unknown button identifier. See event value".
    case unknownButtonIdentifier
    /// An error: a `push/subscribe` request could not be built (no token or no configuration).
    /// Message: "subscribe request data is nil".
    case subscribeRequestDataIsNil
    /// An error: a `push/update` request could not be built. Message: "update request data is nil".
    case updateRequestDataIsNil
    /// An error: an `event/push` request could not be built. Message: "push event request data is nil".
    case pushEventRequestDataIsNil
    /// An error: a `push/unsuspend` request could not be built. Message: "unsuspend request data is nil".
    case unsuspendRequestDataIsNil
    /// An error: a `push/status` request could not be built. Message: "push status request data is nil".
    case pushStatusRequestDataIsNil
    /// An error: a subscription call's data is invalid (e.g. fields that cannot be encoded); `value`
    /// says which. Message: "invalid push subscribe request data".
    case invalidSubRequestData
    /// An error: a push event's data is invalid. Message: "invalid push event request data".
    case invalidPushEventRequestData
    /// An error: the push configuration (token, providers) could not be saved to the local database.
    /// Message: "failed to save the push configuration to the local database".
    case pushConfigurationSaveFailed
    /// An error: the push configuration could not be cleared from the local database.
    /// Message: "failed to clear the push configuration from the local database".
    case pushConfigurationClearFailed
    /// An error: `deleteToken` or `forcedTokenUpdate` was asked for APNs, whose token cannot be deleted.
    /// Message: "forcing a push token update is not possible: the operation is not supported for APNs."
    case apnsIsNotUpdated
    /// An error: no provider gave a push token. Message: "current push token is nil".
    case pushTokenIsNil
    /// Tern's own (not in the reference's table): the server took the device's new notification
    /// permission (`push/update` with `_push_permission`). Message: "successful request: push/update".
    case permissionUpdateRequestSuccessful
    /// Tern's own: sending the device's new notification permission failed (`push/update`); a
    /// `RetryEvent` when the SDK retries. Message: "failed request: push/update".
    case permissionUpdateRequestFailed
    /// Tern's own, an error: `reportPermission` was given a value that is not a permission; nothing
    /// was saved or sent, `value["reason"]` says which values are. Message: "invalid push permission".
    case invalidPushPermission

    static let moduleName = "push"
    public var module: String { Self.moduleName }

    /// False for Tern's own events, which the reference's public table leaves out.
    public var isPublic: Bool {
        switch self {
        case .permissionUpdateRequestSuccessful, .permissionUpdateRequestFailed, .invalidPushPermission: false
        default: true
        }
    }

    public var message: String {
        switch self {
        case .pushProviderSet: "push provider set:"
        case .pushReceive: "received Altcraft push notification."
        case .pushIsPosted: "push is posted."
        case .pushTokenUpdateAwait: "waiting for push token update to complete"
        case .pushSubscribeRequestSuccessful: "successful request: push/subscribe"
        case .pushSubscribeRequestFailed: "failed request: push/subscribe"
        case .pushSuspendRequestSuccessful: "successful request: push/suspend"
        case .pushSuspendRequestFailed: "failed request: push/suspend"
        case .pushUnsubscribeRequestSuccessful: "successful request: push/unsubscribe"
        case .pushUnsubscribeRequestFailed: "failed request: push/unsubscribe"
        case .tokenUpdateRequestSuccessful: "successful request: push/update"
        case .tokenUpdateRequestFailed: "failed request: push/update"
        case .pushStatusRequestSuccessful: "successful request: push/status"
        case .pushStatusRequestFailed: "failed request: push/status"
        case .unsuspendRequestSuccessful: "successful request: push/unsuspend"
        case .unsuspendRequestFailed: "failed request: push/unsuspend"
        case .pushEventRequestSuccessful: "successful request: event/push"
        case .pushEventRequestFailed: "failed request: event/push"
        case .invalidPushProviders: "invalid provider. Available - ios-apns, ios-firebase, ios-huawei."
        case .invalidPushProvider: "invalid provider."
        case .errorHandleUserInfo: "invalid userInfo format"
        case .uidIsNil: "uid in the push data is null, it is impossible to send a push event to the server."
        case .errorMediaDownload: "could not download image data from URL."
        case .errorMediaKeyMissing: "'media' key is missing or URL string is invalid."
        case .errorButtonsKeyMissing: "'buttons' key is missing or is invalid."
        case .invalidButtonIdentifier: "invalid button identifier. See event value"
        case .outOfRangeForIdentifier: "out of range for identifier. See event value"
        case .unknownButtonIdentifier: "unknown button identifier. See event value"
        case .subscribeRequestDataIsNil: "subscribe request data is nil"
        case .updateRequestDataIsNil: "update request data is nil"
        case .pushEventRequestDataIsNil: "push event request data is nil"
        case .unsuspendRequestDataIsNil: "unsuspend request data is nil"
        case .pushStatusRequestDataIsNil: "push status request data is nil"
        case .invalidSubRequestData: "invalid push subscribe request data"
        case .invalidPushEventRequestData: "invalid push event request data"
        case .pushConfigurationSaveFailed: "failed to save the push configuration to the local database"
        case .pushConfigurationClearFailed: "failed to clear the push configuration from the local database"
        case .apnsIsNotUpdated:
            "forcing a push token update is not possible: the operation is not supported for APNs."
        case .pushTokenIsNil: "current push token is nil"
        case .permissionUpdateRequestSuccessful: "successful request: push/update"
        case .permissionUpdateRequestFailed: "failed request: push/update"
        case .invalidPushPermission: "invalid push permission"
        }
    }
}
