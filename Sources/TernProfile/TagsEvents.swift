import Foundation
import TernCore

/// Events of the tags (`Tern.shared.profile.tags`): Tern's own, beside the reference's modules.
///
/// ```swift
/// if event.event == TagsEvents.setTagsRequestFailed { print(event.value?["error_text"] ?? "") }
/// ```
public enum TagsEvents: String, SDKEvent, CaseIterable, Equatable {
    /// An error: a tags call was refused before sending (no tags, too many, an invalid key or value);
    /// `value["reason"]` says which. Message: "invalid tags request data".
    case invalidTagsRequestData
    /// `profile.tags.set(...)` succeeded (`profile/tags/set`). Message: "successful request: profile/tags/set".
    case setTagsRequestSuccessful
    /// `profile.tags.set(...)` failed; a `RetryEvent` when the SDK retries, an `ErrorEvent` otherwise.
    /// `value` holds `http_code`, `error`, `error_text`. Message: "failed request: profile/tags/set".
    case setTagsRequestFailed
    /// `profile.tags.remove(...)` succeeded (`profile/tags/remove`).
    /// Message: "successful request: profile/tags/remove".
    case removeTagsRequestSuccessful
    /// `profile.tags.remove(...)` failed; retried like ``setTagsRequestFailed``.
    /// Message: "failed request: profile/tags/remove".
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
