import Foundation
import TernCore

/// Events of the target module (goals).
public enum TargetModuleEvents: String, SDKEvent, CaseIterable, Equatable {
    /// An error: a goal could not be built into an `event/post` request (e.g. a payload value that is
    /// not a scalar). Message: "mobile event request data is nil".
    case mobileRequestDataIsNil
    /// `target.sendTarget(...)` reached the server (`event/post`).
    /// Message: "successful request: event/post".
    case mobileEventRequestSuccessful
    /// `target.sendTarget(...)` failed; a `RetryEvent` when the SDK retries (5xx or no answer), an
    /// `ErrorEvent` otherwise. Message: "failed request: event/post".
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
