import Foundation

/// Events of the inbox (`Tern.shared.inbox`): Tern's own, beside the reference's modules, in their style.
///
/// ```swift
/// if event.event == InboxEvents.markReadRequestFailed { print(event.value?["error_text"] ?? "") }
/// ```
public enum InboxEvents: String, SDKEvent, CaseIterable, Equatable {
    /// A call was refused before anything was queued or sent (`reason` says why).
    case invalidInboxRequestData
    case syncInboxRequestSuccessful
    case syncInboxRequestFailed
    case markReadRequestSuccessful
    case markReadRequestFailed
    case deleteRequestSuccessful
    case deleteRequestFailed

    static let moduleName = "inbox"
    /// `inbox`.
    public var module: String { Self.moduleName }

    /// The event's fixed message.
    public var message: String {
        switch self {
        case .invalidInboxRequestData: "invalid inbox request data"
        case .syncInboxRequestSuccessful: "successful request: inbox/list"
        case .syncInboxRequestFailed: "failed request: inbox/list"
        case .markReadRequestSuccessful: "successful request: inbox/read"
        case .markReadRequestFailed: "failed request: inbox/read"
        case .deleteRequestSuccessful: "successful request: inbox/delete"
        case .deleteRequestFailed: "failed request: inbox/delete"
        }
    }
}

/// Events of preferences and topics (`Tern.shared.profile`): Tern's own, in the reference's style.
///
/// ```swift
/// if event.event == PreferencesEvents.setPreferencesRequestFailed { print(event.value?["error_text"] ?? "") }
/// ```
public enum PreferencesEvents: String, SDKEvent, CaseIterable, Equatable {
    /// A call was refused before anything was queued or sent (`reason` says why).
    case invalidPreferencesRequestData
    case getPreferencesRequestSuccessful
    case getPreferencesRequestFailed
    case setPreferencesRequestSuccessful
    case setPreferencesRequestFailed
    case followTopicRequestSuccessful
    case followTopicRequestFailed
    case unfollowTopicRequestSuccessful
    case unfollowTopicRequestFailed

    static let moduleName = "preferences"
    /// `preferences`.
    public var module: String { Self.moduleName }

    /// The event's fixed message.
    public var message: String {
        switch self {
        case .invalidPreferencesRequestData: "invalid preferences request data"
        case .getPreferencesRequestSuccessful: "successful request: profile/preferences/get"
        case .getPreferencesRequestFailed: "failed request: profile/preferences/get"
        case .setPreferencesRequestSuccessful: "successful request: profile/preferences/set"
        case .setPreferencesRequestFailed: "failed request: profile/preferences/set"
        case .followTopicRequestSuccessful: "successful request: profile/topics/follow"
        case .followTopicRequestFailed: "failed request: profile/topics/follow"
        case .unfollowTopicRequestSuccessful: "successful request: profile/topics/unfollow"
        case .unfollowTopicRequestFailed: "failed request: profile/topics/unfollow"
        }
    }
}
