import Foundation

/// Events of the target module (goals).
public enum TargetModuleEvents: String, SDKEvent, CaseIterable, Equatable {
    /// An error: a goal could not be built into an `event/post` request (e.g. a payload value that is
    /// not a scalar). Message: "mobile event request data is nil".
    case mobileRequestDataIsNil
    /// `target.sendTarget(...)` reached the server (`event/post`).
    /// Message: "successful request: event/post".
    case mobileEventRequestSuccessful
    /// `target.sendTarget(...)` failed; a ``RetryEvent`` when the SDK retries (5xx or no answer), an
    /// ``ErrorEvent`` otherwise. Message: "failed request: event/post".
    case mobileEventRequestFailed

    static let moduleName = "target"
    public var module: String { Self.moduleName }

    public var message: String {
        switch self {
        case .mobileRequestDataIsNil: "mobile event request data is nil"
        case .mobileEventRequestSuccessful: "successful request: event/post"
        case .mobileEventRequestFailed: "failed request: event/post"
        }
    }
}

/// Events of the profile module.
public enum ProfileModuleEvents: String, SDKEvent, CaseIterable, Equatable {
    /// An error: `update.updateProfileFields(...)` could not be built into a request (no fields, or
    /// fields that cannot be encoded). Message: "profile update request data is nil".
    case profileUpdateRequestDataIsNil
    /// `update.updateProfileFields(...)` succeeded (`profile/update`).
    /// Message: "successful request: profile/update".
    case profileUpdateRequestSuccessful
    /// `update.updateProfileFields(...)` failed; a ``RetryEvent`` when the SDK retries, an ``ErrorEvent``
    /// otherwise. Message: "failed request: profile/update".
    case profileUpdateRequestFailed

    static let moduleName = "profile"
    public var module: String { Self.moduleName }

    public var message: String {
        switch self {
        case .profileUpdateRequestDataIsNil: "profile update request data is nil"
        case .profileUpdateRequestSuccessful: "successful request: profile/update"
        case .profileUpdateRequestFailed: "failed request: profile/update"
        }
    }
}
