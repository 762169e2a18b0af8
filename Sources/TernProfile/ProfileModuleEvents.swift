import Foundation
import TernCore

/// Events of the profile module.
public enum ProfileModuleEvents: String, SDKEvent, CaseIterable, Equatable {
    case profileUpdateRequestDataIsNil
    case profileUpdateRequestSuccessful
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
