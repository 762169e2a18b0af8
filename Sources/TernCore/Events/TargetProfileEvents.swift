import Foundation

/// Events of the target module (goals).
public enum TargetModuleEvents: String, SDKEvent, CaseIterable, Equatable {
    case mobileRequestDataIsNil
    case mobileEventRequestSuccessful
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
