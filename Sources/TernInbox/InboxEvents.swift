import Foundation
import TernCore

/// Events of the inbox (`Tern.shared.inbox`): Tern's own, beside the reference's modules, in their style.
///
/// ```swift
/// if event.event == InboxEvents.markReadRequestFailed { print(event.value?["error_text"] ?? "") }
/// ```
public enum InboxEvents: String, SDKEvent, CaseIterable, Equatable {
    /// A call was refused before anything was queued or sent (`reason` says why).
    case invalidInboxRequestData
    /// The server took `inbox/list`.
    case syncInboxRequestSuccessful
    /// `inbox/list` failed (with `http_code` and `error_text`, or a `reason` when there was no answer).
    case syncInboxRequestFailed
    /// The server took `inbox/read`.
    case markReadRequestSuccessful
    /// `inbox/read` failed (with `http_code` and `error_text`, or a `reason` when there was no answer).
    case markReadRequestFailed
    /// The server took `inbox/delete`.
    case deleteRequestSuccessful
    /// `inbox/delete` failed (with `http_code` and `error_text`, or a `reason` when there was no answer).
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
