import Foundation
import TernCore

/// Events of the tags (`Tern.shared.profile.tags`): Tern's own, beside the reference's modules.
///
/// ```swift
/// if event.event == TagsEvents.setTagsRequestFailed { print(event.value?["error_text"] ?? "") }
/// ```
public enum TagsEvents: String, SDKEvent, CaseIterable, Equatable {
    case invalidTagsRequestData
    case setTagsRequestSuccessful
    case setTagsRequestFailed
    case removeTagsRequestSuccessful
    case removeTagsRequestFailed

    static let moduleName = "tags"
    public var module: String { Self.moduleName }

    public var message: String {
        switch self {
        case .invalidTagsRequestData: "invalid tags request data"
        case .setTagsRequestSuccessful: "successful request: profile/tags/set"
        case .setTagsRequestFailed: "failed request: profile/tags/set"
        case .removeTagsRequestSuccessful: "successful request: profile/tags/remove"
        case .removeTagsRequestFailed: "failed request: profile/tags/remove"
        }
    }
}
