import Foundation

/// Events of the in-app module.
public enum InAppModuleEvents: String, SDKEvent, CaseIterable, Equatable {
    case errorInAppImageLoad
    case invalidStaticField
    case smidIsNil
    case inAppStatusRequestDataIsNil
    case inAppEventRequestDataIsNil
    case subscribeRequestDataIsNil
    case invalidSubRequestData
    case inAppSubscribeRequestSuccessful
    case inAppSubscribeRequestFailed
    case inAppUnsubscribeRequestSuccessful
    case inAppUnsubscribeRequestFailed
    case inAppStatusRequestSuccessful
    case inAppStatusRequestFailed
    case inAppEventRequestSuccessful
    case inAppEventRequestFailed
    case inAppPlacementsRequestSuccessful
    case inAppPlacementsRequestFailed
    case inAppStaticErrorLoad
    case inAppContentErrorLoad
    case maxPlacementsInvalid
    case requestIntervalInvalid
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
