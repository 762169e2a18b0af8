/// A Tern push arriving while the app is in front, handed to each foreground listener.
///
/// A listener can keep the system from showing it (``preventDefault()``) and show its own banner,
/// then call ``recordClick()`` when the person taps that banner: the open is recorded (once per
/// message) without the SDK navigating anywhere.
///
/// ```swift
/// Tern.shared.push.notificationManager.addForegroundListener { event in
///     event.preventDefault()
///     showInAppBanner(event.title, event.body) { event.recordClick() }
/// }
/// ```
@MainActor
public final class ForegroundNotificationEvent {
    /// The push's title.
    public let title: String
    /// The push's body text.
    public let body: String
    /// The push as the SDK read it.
    public let message: TernPushMessage
    /// True once a listener called ``preventDefault()``: the system does not show the notification.
    public private(set) var isDefaultPrevented = false
    private let onClick: @MainActor () -> Void

    init(title: String, body: String, message: TernPushMessage, onClick: @escaping @MainActor () -> Void) {
        self.title = title
        self.body = body
        self.message = message
        self.onClick = onClick
    }

    /// Do not show this notification (no banner, list entry, sound or badge).
    public func preventDefault() {
        isDefaultPrevented = true
    }

    /// The person tapped the app's own banner for this push: records the open, nothing else.
    public func recordClick() {
        onClick()
    }
}
