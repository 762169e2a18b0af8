import Foundation
import TernCore

/// Events of the in-app module.
public enum InAppModuleEvents: String, SDKEvent, CaseIterable, Equatable {
    /// An error: an in-app notification's image could not be loaded. Message: "failed to load in-app image".
    case errorInAppImageLoad
    /// An error: an in-app notification's static field is invalid. Message: "invalid in-app static field".
    case invalidStaticField
    /// An error: in-app data has no message id (smid), so its event cannot be reported.
    /// Message: "smid in the in-app data is null, it is impossible to send a in-app event to the server."
    case smidIsNil
    /// An error: an `inapp/status` request could not be built.
    /// Message: "in-app status request data is nil".
    case inAppStatusRequestDataIsNil
    /// An error: an `inapp/event` request could not be built. Message: "in-app event request data is nil".
    case inAppEventRequestDataIsNil
    /// An error: an `inapp/subscribe` request could not be built.
    /// Message: "in-app subscribe request data is nil".
    case subscribeRequestDataIsNil
    /// An error: an in-app subscription call's data is invalid.
    /// Message: "invalid in-app subscribe request data".
    case invalidSubRequestData
    /// The in-app subscription call succeeded. Message: "successful request: inapp/subscribe".
    case inAppSubscribeRequestSuccessful
    /// The in-app subscription call failed. Message: "failed request: inapp/subscribe".
    case inAppSubscribeRequestFailed
    /// The in-app unsubscription succeeded. Message: "successful request: inapp/unsubscribe".
    case inAppUnsubscribeRequestSuccessful
    /// The in-app unsubscription failed. Message: "failed request: inapp/unsubscribe".
    case inAppUnsubscribeRequestFailed
    /// The in-app subscription status was answered. Message: "successful request: inapp/status".
    case inAppStatusRequestSuccessful
    /// The in-app subscription status call failed. Message: "failed request: inapp/status".
    case inAppStatusRequestFailed
    /// An in-app event (shown, clicked, closed) reached the server. Message: "successful request: inapp/event".
    case inAppEventRequestSuccessful
    /// An in-app event could not be reported. Message: "failed request: inapp/event".
    case inAppEventRequestFailed
    /// The in-app placements were fetched. `value` holds `http_code`, `error`, `error_text` and
    /// `count` (the placements kept). Message: "successful request: inapp/placements".
    case inAppPlacementsRequestSuccessful
    /// Fetching the in-app placements failed. Message: "failed request: inapp/placements".
    case inAppPlacementsRequestFailed
    /// An error: an in-app notification's static resources did not load.
    /// Message: "error loading in-app notification static resources".
    case inAppStaticErrorLoad
    /// An error: an in-app notification's content did not load.
    /// Message: "error loading in-app notification content".
    case inAppContentErrorLoad
    /// An error: the configuration's `maxPlacements` is below 1; the default (10) is used instead.
    /// Message: "Invalid in-app configuration: maxPlacements must be >= 1".
    case maxPlacementsInvalid
    /// An error: the configuration's `placementsRequestInterval` is not above 0; the default (300 s)
    /// is used instead. Message: "Invalid in-app configuration: placementsRequestInterval must be > 0".
    case requestIntervalInvalid
    /// An error: more placements arrived than `maxPlacements` allows; the extra ones are dropped.
    /// Message: "in-app placements limit exceeded".
    case placementsLimitExceeded

    static let moduleName = "inApp"
    public var module: String { Self.moduleName }

    public var message: String {
        switch self {
        case .errorInAppImageLoad: "failed to load in-app image"
        case .invalidStaticField: "invalid in-app static field"
        case .smidIsNil: "smid in the in-app data is null, it is impossible to send a in-app event to the server."
        case .inAppStatusRequestDataIsNil: "in-app status request data is nil"
        case .inAppEventRequestDataIsNil: "in-app event request data is nil"
        case .subscribeRequestDataIsNil: "in-app subscribe request data is nil"
        case .invalidSubRequestData: "invalid in-app subscribe request data"
        case .inAppSubscribeRequestSuccessful: "successful request: inapp/subscribe"
        case .inAppSubscribeRequestFailed: "failed request: inapp/subscribe"
        case .inAppUnsubscribeRequestSuccessful: "successful request: inapp/unsubscribe"
        case .inAppUnsubscribeRequestFailed: "failed request: inapp/unsubscribe"
        case .inAppStatusRequestSuccessful: "successful request: inapp/status"
        case .inAppStatusRequestFailed: "failed request: inapp/status"
        case .inAppEventRequestSuccessful: "successful request: inapp/event"
        case .inAppEventRequestFailed: "failed request: inapp/event"
        case .inAppPlacementsRequestSuccessful: "successful request: inapp/placements"
        case .inAppPlacementsRequestFailed: "failed request: inapp/placements"
        case .inAppStaticErrorLoad: "error loading in-app notification static resources"
        case .inAppContentErrorLoad: "error loading in-app notification content"
        case .maxPlacementsInvalid: "Invalid in-app configuration: maxPlacements must be >= 1"
        case .requestIntervalInvalid: "Invalid in-app configuration: placementsRequestInterval must be > 0"
        case .placementsLimitExceeded: "in-app placements limit exceeded"
        }
    }
}
