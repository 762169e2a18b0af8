import Foundation

/// How the SDK handles notifications while the app runs: foreground presentation, clicks, the
/// open event, URLs, foreground listeners and host categories. `Tern.shared.push.notificationManager`.
///
/// Every decision is made here, on values; on iOS the Apple glue makes this manager the
/// notification center's delegate and forwards to ``willPresent(_:completion:)`` and
/// ``didReceive(_:completion:)``. Both call their completion exactly once.
///
/// ```swift
/// let manager = Tern.shared.push.notificationManager
/// manager.customClickProcessing = true
/// manager.onNotificationClick = { response, complete in
///     route(response)
///     complete()
/// }
/// ```
@MainActor
public final class NotificationManager {
    /// true: the app chooses how a foreground notification is shown and must call `complete`;
    /// false: the SDK shows it with the standard options.
    public var customPushProcessing = false
    /// true: clicks are the app's entirely (it reports the open itself and must call `complete`);
    /// false: the SDK reports the open and opens the click URL or the button's URL.
    public var customClickProcessing = false
    /// true: the SDK never sets the badge; the app owns the count.
    public var applicationControlsBadging = false
    /// Called for each notification shown in the foreground; `complete` counts only with
    /// ``customPushProcessing``.
    public var onForegroundNotification: ((PlatformNotification, @escaping (PresentationOptions) -> Void) -> Void)?
    /// Called for each click; `complete` counts only with ``customClickProcessing``.
    public var onNotificationClick: ((PlatformNotificationResponse, @escaping () -> Void) -> Void)?
    /// The app's URL handler: it sees click and button URLs first.
    public weak var urlHandler: (any PushURLHandling)?
    /// The app's host categories, once ``setHostActions(_:)`` registered them.
    public private(set) var hostActions: HostNotificationActions?

    private let parser: PushPayloadParser
    /// Opens URLs the app did not take; set on iOS by `registerForPushNotifications(for:)`.
    var urlOpener: (any URLOpening)?
    /// Keeps the platform's notification-center delegate alive (the center holds it weakly).
    var platformDelegate: AnyObject?
    /// Hands the app's lifecycle to the SDK instance (iOS: `registerForPushNotifications(for:)`).
    var attachLifecycle: (@Sendable (any AppLifecycle) -> Void)?
    /// Hands each Tern push the app gets to the modules that read pushes (the inbox syncs on its
    /// change marker): `core.handlePush`, set by `Tern.shared.push.notificationManager`.
    var pushReceived: (@Sendable (_ payload: [String: JSONValue], _ function: String) -> Void)?
    /// Raises `permissionDenied` when the person refuses notifications.
    var permissionDenied: (@Sendable () -> Void)?
    /// Reads the notification permission again once the person answered the prompt (allowed or
    /// not), so the server learns the answer without waiting for the next foreground.
    var permissionAnswered: (@Sendable () -> Void)?
    private let issues: (any PushIssueReporting)?
    private var openReporter: (any OpenReporting)?
    private var reportedOpens: Set<String> = []
    private var pendingOpens: [String] = []
    private var listeners: [@MainActor (ForegroundNotificationEvent) -> Void] = []

    /// A manager; `Tern.shared.push.notificationManager` is the one apps use.
    ///
    /// - Parameters:
    ///   - urlOpener: Opens URLs the app did not take; default nil (set on iOS by `registerForPushNotifications(for:)`).
    ///   - issues: Reports push problems as events; default nil.
    ///   - parser: Reads push payloads; default `PushPayloadParser()`.
    public init(
        urlOpener: (any URLOpening)? = nil, issues: (any PushIssueReporting)? = nil,
        parser: PushPayloadParser = PushPayloadParser()
    ) {
        self.urlOpener = urlOpener
        self.issues = issues
        self.parser = parser
    }

    /// Connects the open reports to the core's outbox; opens recorded before (a click that launched
    /// the app from cold) are handed over now.
    public func setOpenReporter(_ reporter: any OpenReporting) {
        openReporter = reporter
        let waiting = pendingOpens
        pendingOpens = []
        for messageId in waiting { send(open: messageId, to: reporter) }
    }

    /// Adds a listener that sees each Tern push arriving in the foreground (standard processing only).
    public func addForegroundListener(_ listener: @escaping @MainActor (ForegroundNotificationEvent) -> Void) {
        listeners.append(listener)
    }

    /// Removes every listener ``addForegroundListener(_:)`` added.
    public func removeAllForegroundListeners() {
        listeners.removeAll()
    }

    /// Keeps the app's host categories, for ``HostNotificationActions/action(for:)`` in click handling.
    public func setHostActions(_ actions: HostNotificationActions?) {
        hostActions = actions
    }

    /// Records that the person opened message `messageId`: once per message, however often it is said.
    public func recordOpen(messageId: String) {
        guard reportedOpens.insert(messageId).inserted else { return }
        if let openReporter {
            send(open: messageId, to: openReporter)
        } else {
            pendingOpens.append(messageId)
        }
    }

    /// A notification is arriving in the foreground: decide how it is shown.
    public func willPresent(_ notification: PlatformNotification, completion: @escaping (PresentationOptions) -> Void) {
        NotificationCenter.default.post(
            name: .ternPushWillPresent, object: self, userInfo: ["notification": notification])
        let userInfo = notification.pushNotification.content.userInfo
        if let message = parser.parse(json: userInfo).message {
            pushReceived?(userInfo, "willPresent")
            // The reference's `pushReceive`: a Tern push reached the app in the foreground.
            if let issues {
                Task { await issues.progress(.pushReceive, messageId: message.messageId, function: "willPresent") }
            }
        }
        let standard = PresentationOptions.standard(applicationControlsBadging: applicationControlsBadging)
        if customPushProcessing {
            guard let onForegroundNotification else { return completion(standard) }
            let once = Once(completion)
            // The app may call `complete` from any thread: hop to the main actor.
            onForegroundNotification(notification) { options in Task { @MainActor in once.call(options) } }
            return
        }
        onForegroundNotification?(notification) { _ in }
        completion(runListeners(for: notification.pushNotification) ? [] : standard)
    }

    /// The person tapped a notification or one of its buttons, or dismissed it.
    public func didReceive(_ response: PlatformNotificationResponse, completion: @escaping () -> Void) {
        NotificationCenter.default.post(name: .ternPushDidReceive, object: self, userInfo: ["response": response])
        let userInfo = response.pushResponse.notification.content.userInfo
        if parser.parse(json: userInfo).message != nil { pushReceived?(userInfo, "didReceive") }
        if customClickProcessing {
            guard let onNotificationClick else { return completion() }
            let once = Once(completion)
            onNotificationClick(response) { Task { @MainActor in once.call(()) } }
            return
        }
        onNotificationClick?(response) {}
        guard let plan = ClickPlan.make(for: response.pushResponse, parser: parser) else { return completion() }
        report(plan.issues)
        if let messageId = plan.openMessageId { recordOpen(messageId: messageId) }
        guard let url = plan.url, let source = plan.urlSource else { return completion() }
        if urlHandler?.handlePushURL(url, source: source) == true { return completion() }
        guard let urlOpener else { return completion() }
        Task { @MainActor in
            _ = await urlOpener.open(url)
            completion()
        }
    }

    /// Runs the listeners for a Tern push; true when one of them prevented the default display.
    private func runListeners(for notification: PushNotification) -> Bool {
        guard !listeners.isEmpty, let message = parser.parse(json: notification.content.userInfo).message else {
            return false
        }
        let event = ForegroundNotificationEvent(
            title: notification.content.title, body: notification.content.body, message: message
        ) { [weak self] in
            guard let messageId = message.messageId else {
                self?.report([PushIssue(.uidIsNil, reason: "the clicked push has no message_id")])
                return
            }
            self?.recordOpen(messageId: messageId)
        }
        for listener in listeners { listener(event) }
        return event.isDefaultPrevented
    }

    private func send(open messageId: String, to reporter: any OpenReporting) {
        // Into the SDK's mailbox now, in order with the app's other calls.
        reporter.queueOpen(messageId: messageId)
    }

    private func report(_ found: [PushIssue]) {
        guard let issues, !found.isEmpty else { return }
        Task {
            for issue in found { await issues.report(issue, function: "notificationManager") }
        }
    }
}

/// Calls a completion handler the first time only.
@MainActor
final class Once<Value> {
    private var handler: ((Value) -> Void)?

    init(_ handler: @escaping (Value) -> Void) {
        self.handler = handler
    }

    func call(_ value: Value) {
        let handler = self.handler
        self.handler = nil
        handler?(value)
    }
}
