import Foundation
import TernCore

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
