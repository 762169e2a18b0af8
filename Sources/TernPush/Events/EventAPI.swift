import Foundation

/// `Tern.shared.push.pushEvents`: reporting a push's delivery and its opening (`event/push`).
/// With the standard handling both are reported by the SDK itself; call these when the app handles
/// pushes itself (an own extension, `customClickProcessing`). Each message is opened once however
/// often it is reported, and reports follow the push's `tern.track`.
///
/// ```swift
/// manager.onNotificationClick = { response, complete in
///     Tern.shared.push.pushEvents.openEvent(from: response.notification.request)
///     complete()
/// }
/// ```
public struct EventAPI: Sendable {
    let core: CoreServices

    /// Reports that the push with this `userInfo` reached the device.
    public func deliveryEvent(from userInfo: [AnyHashable: Any]) {
        delivery(PushPayloadParser().parse(userInfo: userInfo))
    }

    /// Reports that the push with this content reached the device.
    public func deliveryEvent(from content: NotificationContent) {
        delivery(PushPayloadParser().parse(json: content.userInfo))
    }

    /// Reports that the person opened the push with this `userInfo`.
    @MainActor
    public func openEvent(from userInfo: [AnyHashable: Any]) {
        open(PushPayloadParser().parse(userInfo: userInfo))
    }

    /// Reports that the person opened the push with this content.
    @MainActor
    public func openEvent(from content: NotificationContent) {
        open(PushPayloadParser().parse(json: content.userInfo))
    }

    private func delivery(_ outcome: PushParseOutcome) {
        guard let messageId = messageId(.delivery, outcome, function: "deliveryEvent") else { return }
        // Into the mailbox now, in order with the app's other calls.
        OutboxPushEventReporter(core: core).queueDelivery(messageId: messageId)
    }

    /// Through the notification manager's open reporter, which reports each message once.
    @MainActor
    private func open(_ outcome: PushParseOutcome) {
        guard let messageId = messageId(.open, outcome, function: "openEvent") else { return }
        NotificationManagers.manager(for: core).recordOpen(messageId: messageId)
    }

    /// The message id to report; otherwise the reasons are raised as events and nil is returned.
    private func messageId(_ kind: PushEventRequest.Kind, _ outcome: PushParseOutcome, function: String) -> String? {
        let found = outcome.issues
        if !found.isEmpty {
            let issues = EventBusIssueReporter(bus: core.bus)
            Task { for issue in found { await issues.report(issue, function: function) } }
        }
        switch Self.decide(kind, outcome) {
        case .report(let messageId)?:
            return messageId
        case .refuse(let event, let reason)?:
            core.emit(.error(function, event, value: ["reason": reason]))
            return nil
        case nil:
            return nil
        }
    }

    enum Decision: Equatable {
        case report(messageId: String)
        case refuse(PushModuleEvents, reason: String)
    }

    /// Whether a push's event is reported, and why not. Pure.
    static func decide(_ kind: PushEventRequest.Kind, _ outcome: PushParseOutcome) -> Decision? {
        switch outcome {
        case .notTern:
            return .refuse(.errorHandleUserInfo, reason: "not a Tern push: its userInfo has no tern object")
        case .malformed:
            // The parser's own issue (errorHandleUserInfo) says why.
            return nil
        case .push(let message, _):
            // A missing id was reported by the parser as uidIsNil.
            guard let messageId = message.messageId else { return nil }
            let asked = kind == .delivery ? message.track.delivery : message.track.open
            guard asked else {
                return .refuse(
                    .invalidPushEventRequestData,
                    reason:
                        "message \(messageId) does not ask for \(kind.rawValue) reports (tern.track.\(kind.rawValue))")
            }
            return .report(messageId: messageId)
        }
    }
}
