import Foundation

/// What the app does with a campaign's buttons. A button whose action the app does not take, and
/// the SDK has no default for, is not drawn (a custom button without ``onCustom``).
///
/// ```swift
/// Tern.shared.inApp.setHandlers(InAppHandlers(
///     onDeepLink: { url in router.open(url) },
///     onCustom: { name, value in analytics.log(name, value) }))
/// ```
public struct InAppHandlers: Sendable {
    /// A `deep_link` or `url` button: the app opens the link (by default the system opens it).
    public var onDeepLink: (@MainActor @Sendable (URL) -> Void)?
    /// A `custom` button: its name and value (no default: without it, custom buttons are not drawn).
    public var onCustom: (@MainActor @Sendable (_ name: String, _ value: String?) -> Void)?
    /// A `request_push` button: the app asks for push permission (by default the SDK's prompt and
    /// registration, where the platform has them).
    public var onRequestPush: (@MainActor @Sendable () -> Void)?

    /// Handlers; each left nil falls back to the SDK's default, if any.
    public init(
        onDeepLink: (@MainActor @Sendable (URL) -> Void)? = nil,
        onCustom: (@MainActor @Sendable (_ name: String, _ value: String?) -> Void)? = nil,
        onRequestPush: (@MainActor @Sendable () -> Void)? = nil
    ) {
        self.onDeepLink = onDeepLink
        self.onCustom = onCustom
        self.onRequestPush = onRequestPush
    }
}

/// What the platform does by itself when the app gives no handler: open a link, ask for push
/// permission. The iOS SDK's opens links with the system and asks with the notification center;
/// elsewhere there are none, so such buttons need a handler.
public protocol InAppSystemActions: Sendable {
    /// True when ``open(_:)`` can open links.
    var opensLinks: Bool { get }
    /// True when ``requestPush()`` can ask.
    var requestsPush: Bool { get }
    /// Opens a link.
    @MainActor func open(_ url: URL)
    /// Asks for push permission and registers for pushes.
    @MainActor func requestPush()
}

/// No system actions (Linux, tests).
struct NoSystemActions: InAppSystemActions {
    var opensLinks: Bool { false }
    var requestsPush: Bool { false }
    func open(_ url: URL) {}
    func requestPush() {}
}

/// Which buttons are drawn and what a tap does. Pure.
enum ButtonRules {
    /// True when the app or the platform can act on `action`.
    static func drawable(_ action: InAppAction, handlers: InAppHandlers, system: any InAppSystemActions) -> Bool {
        switch action.type {
        case .close: return true
        case .deepLink, .url:
            guard link(action) != nil else { return false }
            return handlers.onDeepLink != nil || system.opensLinks
        case .custom: return !(action.name ?? "").isEmpty && handlers.onCustom != nil
        case .requestPush: return handlers.onRequestPush != nil || system.requestsPush
        }
    }

    /// The link of a `deep_link` (any scheme) or `url` (http or https) action.
    static func link(_ action: InAppAction) -> URL? {
        guard let text = action.value, let url = URL(string: text), let scheme = url.scheme?.lowercased() else {
            return nil
        }
        if action.type == .url && scheme != "http" && scheme != "https" { return nil }
        return url
    }

    /// Does what `action` says: the app's handler, else the platform's default.
    @MainActor
    static func perform(_ action: InAppAction, handlers: InAppHandlers, system: any InAppSystemActions) {
        switch action.type {
        case .close: return
        case .deepLink, .url:
            guard let url = link(action) else { return }
            if let handler = handlers.onDeepLink { handler(url) } else if system.opensLinks { system.open(url) }
        case .custom:
            if let name = action.name { handlers.onCustom?(name, action.value) }
        case .requestPush:
            if let handler = handlers.onRequestPush { handler() } else if system.requestsPush { system.requestPush() }
        }
    }
}
