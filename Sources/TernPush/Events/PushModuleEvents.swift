import Foundation
import TernCore

/// Events of the push module: tokens, subscriptions, notifications, push events.
public enum PushModuleEvents: String, SDKEvent, CaseIterable, Equatable {
    case pushProviderSet
    case pushReceive
    case pushIsPosted
    case pushTokenUpdateAwait
    case pushSubscribeRequestSuccessful
    case pushSubscribeRequestFailed
    case pushSuspendRequestSuccessful
    case pushSuspendRequestFailed
    case pushUnsubscribeRequestSuccessful
    case pushUnsubscribeRequestFailed
    case tokenUpdateRequestSuccessful
    case tokenUpdateRequestFailed
    case pushStatusRequestSuccessful
    case pushStatusRequestFailed
    case unsuspendRequestSuccessful
    case unsuspendRequestFailed
    case pushEventRequestSuccessful
    case pushEventRequestFailed
    case invalidPushProviders
    case invalidPushProvider
    case errorHandleUserInfo
    case uidIsNil
    case errorMediaDownload
    case errorMediaKeyMissing
    case errorButtonsKeyMissing
    case invalidButtonIdentifier
    case outOfRangeForIdentifier
    case unknownButtonIdentifier
    case subscribeRequestDataIsNil
    case updateRequestDataIsNil
    case pushEventRequestDataIsNil
    case unsuspendRequestDataIsNil
    case pushStatusRequestDataIsNil
    case invalidSubRequestData
    case invalidPushEventRequestData
    case pushConfigurationSaveFailed
    case pushConfigurationClearFailed
    case apnsIsNotUpdated
    case pushTokenIsNil

    static let moduleName = "push"
    public var module: String { Self.moduleName }

    /// Every push event is in the reference's public table.
    public var isPublic: Bool { true }

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
        }
    }
}
