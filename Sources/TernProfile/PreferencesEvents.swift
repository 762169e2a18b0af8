import Foundation
import TernCore

/// Events of preferences and topics (`Tern.shared.profile`): Tern's own, in the reference's style.
///
/// ```swift
/// if event.event == PreferencesEvents.setPreferencesRequestFailed { print(event.value?["error_text"] ?? "") }
/// ```
public enum PreferencesEvents: String, SDKEvent, CaseIterable, Equatable {
    /// A call was refused before anything was queued or sent (`reason` says why).
    case invalidPreferencesRequestData
    /// The server took `profile/preferences/get`.
    case getPreferencesRequestSuccessful
    /// `profile/preferences/get` failed (with `http_code` and `error_text`, or a `reason` when there was no answer).
    case getPreferencesRequestFailed
    /// The server took `profile/preferences/set`.
    case setPreferencesRequestSuccessful
    /// `profile/preferences/set` failed (with `http_code` and `error_text`, or a `reason` when there was no answer).
    case setPreferencesRequestFailed
    /// The server took `profile/topics/follow`.
    case followTopicRequestSuccessful
    /// `profile/topics/follow` failed (with `http_code` and `error_text`, or a `reason` when there was no answer).
    case followTopicRequestFailed
    /// The server took `profile/topics/unfollow`.
    case unfollowTopicRequestSuccessful
    /// `profile/topics/unfollow` failed (with `http_code` and `error_text`, or a `reason` when there was no answer).
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
