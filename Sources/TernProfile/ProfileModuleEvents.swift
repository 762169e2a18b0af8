import Foundation
import TernCore

/// Events of the profile module.
public enum ProfileModuleEvents: String, SDKEvent, CaseIterable, Equatable {
    /// An error: `update.updateProfileFields(...)` could not be built into a request (no fields, or
    /// fields that cannot be encoded). Message: "profile update request data is nil".
    case profileUpdateRequestDataIsNil
    /// `update.updateProfileFields(...)` succeeded (`profile/update`).
    /// Message: "successful request: profile/update".
    case profileUpdateRequestSuccessful
    /// `update.updateProfileFields(...)` failed; a `RetryEvent` when the SDK retries, an `ErrorEvent`
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
