import Foundation
import TernProtocol

/// What the SDK's standard click handling does for one response, decided before anything is done.
///
/// - a dismissal, or a button whose action is `dismiss`: nothing;
/// - a tap on the notification: the open event, then its `click_url`;
/// - a Tern button: the open event, then its `url` for a `url` button (an id the message does not
///   have: `unknownButtonIdentifier`, and the open still counts);
/// - any other action (a host category's): the open event only.
///
/// The open event needs `track.open` and a message id (without one: `uidIsNil`).
///
/// ```swift
/// let plan = ClickPlan.make(for: response)   // nil: not a Tern push
/// ```
public struct ClickPlan: Sendable, Equatable {
    /// The message whose open to report, when it should be.
    public var openMessageId: String?
    /// The URL to hand to the app's URL handler (or the system).
    public var url: URL?
    /// Where ``url`` came from: the notification's `click_url` or a button's `url`.
    public var urlSource: PushURLSource?
    /// Problems to report as push events.
    public var issues: [PushIssue]

    /// A plan.
    ///
    /// - Parameters:
    ///   - openMessageId: The message whose open to report; default nil.
    ///   - url: The URL to open; default nil.
    ///   - urlSource: Where it came from; default nil.
    ///   - issues: Problems to report; default none.
    public init(
        openMessageId: String? = nil, url: URL? = nil, urlSource: PushURLSource? = nil, issues: [PushIssue] = []
    ) {
        self.openMessageId = openMessageId
        self.url = url
        self.urlSource = urlSource
        self.issues = issues
    }

    /// The plan for `response`, or nil when the notification is not a Tern push.
    public static func make(
        for response: PushNotificationResponse, parser: PushPayloadParser = PushPayloadParser()
    ) -> ClickPlan? {
        let outcome = parser.parse(json: response.notification.content.userInfo)
        switch outcome {
        case .notTern:
            return nil
        case .malformed(let issues):
            return ClickPlan(issues: issues)
        case .push(let message, _):
            return plan(message, actionIdentifier: response.actionIdentifier)
        }
    }

    private static func plan(_ message: TernPushMessage, actionIdentifier: String) -> ClickPlan {
        if actionIdentifier == PushNotificationResponse.dismissActionIdentifier { return ClickPlan() }
        var plan = ClickPlan()
        if actionIdentifier == PushNotificationResponse.defaultActionIdentifier {
            plan.url = message.clickURL
            plan.urlSource = message.clickURL == nil ? nil : .notification
        } else if let buttonId = MessageCategory.buttonId(fromAction: actionIdentifier) {
            guard let button = message.button(id: buttonId) else {
                plan.issues.append(
                    PushIssue(
                        .unknownButtonIdentifier, reason: "the message has no button '\(buttonId)'",
                        details: [
                            "identifier": .string(buttonId),
                            "message_id": message.messageId.map(JSONValue.string) ?? .null,
                        ]))
                return opened(plan, message)
            }
            switch button.action {
            case .dismiss:
                return plan
            case .open:
                break
            case .url:
                plan.url = button.url.flatMap(URL.init(string:))
                plan.urlSource = plan.url == nil ? nil : .button(button.id)
            }
        }
        return opened(plan, message)
    }

    private static func opened(_ plan: ClickPlan, _ message: TernPushMessage) -> ClickPlan {
        guard message.track.open else { return plan }
        var plan = plan
        if let messageId = message.messageId {
            plan.openMessageId = messageId
        } else {
            plan.issues.append(
                PushIssue(.uidIsNil, reason: "the opened push has no message_id", details: ["key": "message_id"]))
        }
        return plan
    }
}
