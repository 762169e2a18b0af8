import Foundation

/// Events of the core: configuration, initialization, app group, auth, consent, clearing.
public enum CoreEvents: String, SDKEvent, CaseIterable, Equatable {
    case configSet
    case sdkCleared
    case initAwait
    case userLogOut
    case backgroundTaskRegister
    case backgroundTaskCompleted
    case configIsNotSet
    case appGroupIsNotSet
    case notAuthenticatedError
    case invalidUrlValue
    case invalidRTokenValue
    case fieldsIsObjects
    case permissionDenied
    case jwtIsNil
    case authenticateSuccessful
    case authenticateFailed

    // Internal events (not part of the reference's public table).
    case collectionDisabled
    case databaseError
    case moduleInitFailed

    static let moduleName = "core"
    public var module: String { Self.moduleName }

    /// False for the internal events the reference leaves out of its public table.
    public var isPublic: Bool {
        switch self {
        case .collectionDisabled, .databaseError, .moduleInitFailed: false
        default: true
        }
    }

    public var message: String {
        switch self {
        case .configSet: "SDK configuration is installed."
        case .sdkCleared: "SDK data has been cleared"
        case .initAwait: "waiting for SDK initialization to complete"
        case .userLogOut: "User logged out. Anonymous session started"
        case .backgroundTaskRegister: "SDK background task is registered"
        case .backgroundTaskCompleted: "SDK background task completed"
        case .configIsNotSet: "the configuration is not set"
        case .appGroupIsNotSet: "App Group name was not set."
        case .notAuthenticatedError: "user is not authenticated"
        case .invalidUrlValue: "invalid apiUrl value - empty or null."
        case .invalidRTokenValue: "invalid resource token value - resource token is empty."
        case .fieldsIsObjects: "invalid values: not all values are primitives"
        case .permissionDenied: "notification permission denied."
        case .jwtIsNil: "JWT token is nil"
        case .authenticateSuccessful: "successful request: profile/authenticate"
        case .authenticateFailed: "failed request: profile/authenticate"
        case .collectionDisabled: "data collection is disabled: call setCollectionEnabled(true) after consent"
        case .databaseError: "the SDK database could not be opened or written"
        case .moduleInitFailed: "a module failed to initialize"
        }
    }
}
