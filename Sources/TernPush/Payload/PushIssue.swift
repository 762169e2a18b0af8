import Foundation
import TernProtocol

/// Something wrong with a push that the SDK reports as a push-module event and then works around:
/// the notification is still shown, without the part that was wrong.
///
/// `kind` is the reference's event name (`PushModuleEvents`), `message` its text, and `value` the
/// details a person needs to fix the payload, always with a `reason`.
///
/// ```swift
/// for issue in outcome.issues {
///     print(issue.kind.rawValue, issue.message, issue.value["reason"] ?? "")
/// }
/// ```
public struct PushIssue: Error, Sendable, Equatable, CustomStringConvertible {
    /// The push-module event an issue becomes.
    public enum Kind: String, Sendable, CaseIterable {
        /// The `tern` object is malformed (the `errorHandleUserInfo` push event).
        case errorHandleUserInfo
        /// No message id: no event can be reported.
        case uidIsNil
        /// The media could not be downloaded or attached.
        case errorMediaDownload
        /// The media URL is missing or invalid (not https).
        case errorMediaKeyMissing
        /// The `buttons` value is not a list of buttons.
        case errorButtonsKeyMissing
        /// A button's id breaks the rules (see `PushButton.identifierProblem(_:)`).
        case invalidButtonIdentifier
        /// More buttons than `PushButton.maxCount`: the extra ones are dropped.
        case outOfRangeForIdentifier
        /// A tapped action names a button the message does not have.
        case unknownButtonIdentifier
    }

    /// The push-module event the issue becomes.
    public var kind: Kind
    /// Details for the event's `value`: always `reason`, and where it applies `key`, `index`,
    /// `identifier`, `url`, `message_id`.
    public var value: [String: JSONValue]

    /// An issue.
    ///
    /// - Parameters:
    ///   - kind: The event it becomes.
    ///   - reason: Why, in words a person can act on (the `reason` in ``value``).
    ///   - details: More of ``value``, e.g. `key`, `index`, `identifier`, `url`; default none.
    public init(_ kind: Kind, reason: String, details: [String: JSONValue] = [:]) {
        self.kind = kind
        var value = details
        value["reason"] = .string(reason)
        self.value = value
    }

    /// The reference's message for this kind of event.
    public var message: String { kind.message }

    /// Why it happened, in words.
    public var reason: String { value["reason"]?.stringValue ?? "" }

    public var description: String { "\(kind.rawValue): \(reason)" }
}

/// Where the SDK's push issues go: the core's event bus turns each into an `ErrorEvent`.
public protocol PushIssueReporting: Sendable {
    /// Reports one issue; `function` names the SDK function that met it (the event's `function`).
    func report(_ issue: PushIssue, function: String) async
    /// Reports a push's progress (`pushReceive`, `pushIsPosted`) for `messageId` (nil when the push has none).
    func progress(_ event: PushModuleEvents, messageId: String?, function: String) async
}

extension PushIssueReporting {
    /// Reporters that only want problems ignore progress.
    public func progress(_ event: PushModuleEvents, messageId: String?, function: String) async {}
}
