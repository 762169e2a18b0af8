import TernProtocol

/// What ``PushPayloadParser`` made of a notification's `userInfo`.
///
/// ```swift
/// switch parser.parse(userInfo: userInfo) {
/// case .notTern: break                          // another sender's push: leave it alone
/// case .malformed(let issues): report(issues)   // show it as it came
/// case .push(let message, let issues): report(issues); handle(message)
/// }
/// ```
public enum PushParseOutcome: Sendable, Equatable {
    /// No `tern` object: not a Tern push.
    case notTern
    /// A `tern` key whose content cannot be used at all; the notification is shown as it came.
    case malformed([PushIssue])
    /// A Tern push; `issues` lists the parts that were dropped because they broke a rule.
    case push(TernPushMessage, issues: [PushIssue])

    /// The issues to report as push events (none for `.notTern`).
    public var issues: [PushIssue] {
        switch self {
        case .notTern: []
        case .malformed(let issues): issues
        case .push(_, let issues): issues
        }
    }

    /// The parsed message, when there is one.
    public var message: TernPushMessage? {
        if case .push(let message, _) = self { message } else { nil }
    }
}
