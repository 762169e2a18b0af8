import Foundation

/// Events of the core: configuration, initialization, app group, auth, consent, clearing.
public enum CoreEvents: String, SDKEvent, CaseIterable, Equatable {
    /// A configuration was accepted by `initialization(configuration:)`; raised as an ``Event``.
    /// Message: "SDK configuration is installed."
    case configSet
    /// `clear(completion:)` erased the SDK's data (database, cache, settings); raised as an ``Event``
    /// just before the completion runs. Message: "SDK data has been cleared".
    case sdkCleared
    /// A call arrived before initialization finished: it waits and runs once the SDK is ready.
    /// Raised once per initialization. Message: "waiting for SDK initialization to complete".
    case initAwait
    /// `authFunctions.logOut()` ended the user's session: the device is anonymous again.
    /// Message: "User logged out. Anonymous session started".
    case userLogOut
    /// `backgroundTasks.registerBackgroundTask()` registered the SDK's background flush with the
    /// system's scheduler. Message: "SDK background task is registered".
    case backgroundTaskRegister
    /// A run of the SDK's background task finished (the queued requests were sent, or the system's time
    /// ran out). Message: "SDK background task completed".
    case backgroundTaskCompleted
    /// An error: a call needs a configuration and none is usable (`initialization(configuration:)` was
    /// not called, or its configuration was refused). Message: "the configuration is not set".
    case configIsNotSet
    /// An error: the App Group is needed (to share data with the Notification Service Extension) and
    /// `setAppGroup(groupName:)` was not called. Message: "App Group name was not set."
    case appGroupIsNotSet
    /// An error: a call needs a signed-in user and the device is anonymous (e.g. `logOut()` with no one
    /// signed in). Message: "user is not authenticated".
    case notAuthenticatedError
    /// An error: the configuration's `apiUrl` is empty or not an absolute http(s) URL; the
    /// configuration is refused. Message: "invalid apiUrl value - empty or null."
    case invalidUrlValue
    /// An error: the configuration's `rToken` was given but is empty; the configuration is refused.
    /// Message: "invalid resource token value - resource token is empty."
    case invalidRTokenValue
    /// An error: `customFields` hold a value that is not a scalar (an object or a list); the request is
    /// not sent. Message: "invalid values: not all values are primitives".
    case fieldsIsObjects
    /// An error: the user refused notification permission when the SDK asked for it
    /// (`registerForPushNotifications(for:)`). Message: "notification permission denied."
    case permissionDenied
    /// A request needs a JWT and the app's ``JWTInterface`` returned nil; raised as a ``RetryEvent`` when
    /// the request stays queued for a later try, else as an ``ErrorEvent``. Message: "JWT token is nil".
    case jwtIsNil
    /// `authFunctions.authenticate()` succeeded: the server linked the device to the user's profile
    /// (`profile/authenticate`). `value` holds `http_code`, `error` and `error_text`.
    /// Message: "successful request: profile/authenticate".
    case authenticateSuccessful
    /// `authFunctions.authenticate()` failed; a ``RetryEvent`` when the SDK retries (5xx or no answer),
    /// an ``ErrorEvent`` otherwise. `value` holds `http_code`, and `error`/`error_text` when the server
    /// answered. Message: "failed request: profile/authenticate".
    case authenticateFailed

    // Internal events (not part of the reference's public table).
    /// Internal: a call that collects data was refused because collection is off
    /// (`setCollectionEnabled(false)`, or the configuration's `collectionEnabled` is false).
    case collectionDisabled
    /// Internal: the SDK's database could not be opened or written; `value["reason"]` says why.
    case databaseError
    /// Internal: a module (push, target, profile, ...) did not initialize; see ``ModuleInitStatus``.
    case moduleInitFailed
    /// Internal: the server took the SDK's report of the built-in fields (`device/report`: app
    /// version, language, sessions, foreground time), sent when a session starts and when the app
    /// leaves the foreground.
    case deviceReportSuccessful
    /// Internal: the report of the built-in fields failed (e.g. 404 before the device subscribed);
    /// a ``RetryEvent`` while it is retried.
    case deviceReportFailed

    static let moduleName = "core"
    public var module: String { Self.moduleName }

    /// False for the internal events the reference leaves out of its public table.
    public var isPublic: Bool {
        switch self {
        case .collectionDisabled, .databaseError, .moduleInitFailed, .deviceReportSuccessful, .deviceReportFailed: false
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
        case .deviceReportSuccessful: "successful request: device/report"
        case .deviceReportFailed: "failed request: device/report"
        }
    }
}
