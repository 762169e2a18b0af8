import Foundation
import TernProtocol

/// A Tern push, read and checked: what the extension and the notification manager act on.
///
/// Built by ``PushPayloadParser`` from a notification's `userInfo`; every field here has passed its
/// rules (an https media URL, at most three buttons with unique valid identifiers, an absolute click
/// URL). Parts that broke a rule are absent, and the parser reported them as ``PushIssue``s.
///
/// ```swift
/// if case .push(let message, _) = PushPayloadParser().parse(userInfo: userInfo) {
///     print(message.messageId ?? "untracked", message.alert.title ?? "")
/// }
/// ```
public struct TernPushMessage: Sendable, Equatable {
    /// The `tern` object's version (1 when absent).
    public var version: Int
    /// The message's id; nil when the payload had none, and then no event can be reported.
    public var messageId: String?
    /// What `aps.alert` says.
    public var alert: PushAlert
    /// The media to attach: https (or plain http on loopback when allowed, for tests).
    public var mediaURL: URL?
    /// The buttons that passed their rules, in payload order (at most `PushButton.maxCount`).
    public var buttons: [PushButton]
    /// Opened when the notification itself is tapped.
    public var clickURL: URL?
    /// Which events the device reports; an absent `track` object reports neither, as the server reads it.
    public var track: TernPushPayload.Tracking
    /// The message's custom data: every top-level key beside `aps` and `tern`.
    public var customData: [String: JSONValue]

    /// A message; the parser makes them.
    ///
    /// - Parameters:
    ///   - version: The `tern` object's version; default the current one.
    ///   - messageId: The message's id, or nil.
    ///   - alert: The visible text; default empty.
    ///   - mediaURL: Media to attach; default nil.
    ///   - buttons: Buttons; default none.
    ///   - clickURL: The URL opened on tap; default nil.
    ///   - track: Which events to report; default neither.
    ///   - customData: The custom keys; default none.
    public init(
        version: Int = TernPushPayload.currentVersion, messageId: String?, alert: PushAlert = PushAlert(),
        mediaURL: URL? = nil, buttons: [PushButton] = [], clickURL: URL? = nil,
        track: TernPushPayload.Tracking = .init(delivery: false, open: false), customData: [String: JSONValue] = [:]
    ) {
        self.version = version
        self.messageId = messageId
        self.alert = alert
        self.mediaURL = mediaURL
        self.buttons = buttons
        self.clickURL = clickURL
        self.track = track
        self.customData = customData
    }

    /// The button with this id, if the message has one.
    public func button(id: String) -> PushButton? {
        buttons.first { $0.id == id }
    }
}

/// The visible text of a push, from `aps.alert` (a string is the body).
public struct PushAlert: Sendable, Equatable {
    /// `aps.alert.title`.
    public var title: String?
    /// `aps.alert.subtitle`.
    public var subtitle: String?
    /// `aps.alert.body` (or `aps.alert` when it is a string).
    public var body: String?

    /// A push's text; every part defaults to nil.
    ///
    /// - Parameters:
    ///   - title: The title.
    ///   - subtitle: The subtitle.
    ///   - body: The body.
    public init(title: String? = nil, subtitle: String? = nil, body: String? = nil) {
        self.title = title
        self.subtitle = subtitle
        self.body = body
    }
}
