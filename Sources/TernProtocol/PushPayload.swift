import Foundation

/// The `tern` object inside a push payload: how the SDK recognises Tern's pushes and what the
/// Notification Service Extension needs to finish them. Beside it, `aps` as Apple defines it (with
/// `mutable-content: 1` whenever ``needsServiceExtension`` is true) and the message's custom data as
/// top-level keys.
///
/// ```json
/// {"aps": {"alert": {"title": "Hi", "body": "…"}, "mutable-content": 1},
///  "tern": {"v": 1, "message_id": "m-42", "media_url": "https://cdn.example.com/a.jpg",
///           "buttons": [{"id": "open", "title": "Open", "action": "open"}],
///           "click_url": "https://example.com/sale", "track": {"delivery": true, "open": true}}}
/// ```
///
/// Its keys are declared once, in ``Key`` (with ``Tracking/Key`` and ``PushButton/Key``): the server
/// writes the object with ``json`` and the SDK's parser reads each member by the same keys.
public struct TernPushPayload: Codable, Sendable, Equatable {
    /// The key of the object in the push's user info.
    public static let key = "tern"
    /// The payload version this code writes.
    public static let currentVersion = 1
    /// APNs refuses larger payloads.
    public static let apnsMaxBytes = 4096
    /// Every notification category Tern registers for a message's buttons starts with it (`tern.`);
    /// an app's own category (a message's `ios_category`, a host category) must not.
    public static let categoryPrefix = "tern."

    /// The payload's version (`v`); ``currentVersion`` for what this code writes.
    public var version: Int
    /// The message's id: delivery and open events refer to it.
    public var messageId: String
    /// An https URL of an image, GIF, audio or video to attach.
    public var mediaURL: String?
    /// Up to ``PushButton/maxCount`` buttons, shown as the notification's actions.
    public var buttons: [PushButton]?
    /// Opened when the notification itself is tapped.
    public var clickURL: String?
    /// Which events the device reports; nil reports none.
    public var track: Tracking?

    /// Which events the device reports for this message.
    public struct Tracking: Codable, Sendable, Equatable {
        /// Report the delivery (`event/push` with `delivery`) from the Notification Service Extension.
        public var delivery: Bool
        /// Report the open (`event/push` with `open`) when the user taps the notification.
        public var open: Bool

        /// Which events to report.
        ///
        /// - Parameters:
        ///   - delivery: Report the delivery.
        ///   - open: Report the open.
        public init(delivery: Bool, open: Bool) {
            self.delivery = delivery
            self.open = open
        }

        /// The members of the `track` object.
        public enum Key: String, CodingKey, CaseIterable, Sendable {
            /// Whether the extension reports the push's delivery.
            case delivery
            /// Whether the app reports the push's opening.
            case open
        }

        typealias CodingKeys = Key

        /// The `track` object as JSON.
        public var json: JSONValue {
            .object([Key.delivery.rawValue: .bool(delivery), Key.open.rawValue: .bool(open)])
        }
    }

    /// A `tern` object.
    ///
    /// - Parameters:
    ///   - version: The payload version; default ``currentVersion``.
    ///   - messageId: The message's id.
    ///   - mediaURL: An https media URL to attach; default nil.
    ///   - buttons: The buttons; default nil.
    ///   - clickURL: The URL opened on tap; default nil.
    ///   - track: Which events to report; default nil.
    public init(
        version: Int = TernPushPayload.currentVersion, messageId: String, mediaURL: String? = nil,
        buttons: [PushButton]? = nil, clickURL: String? = nil, track: Tracking? = nil
    ) {
        self.version = version
        self.messageId = messageId
        self.mediaURL = mediaURL
        self.buttons = buttons
        self.clickURL = clickURL
        self.track = track
    }

    /// True when the extension must run: media to download, buttons to register, or a delivery to report.
    public var needsServiceExtension: Bool {
        mediaURL != nil || !(buttons ?? []).isEmpty || (track?.delivery ?? false)
    }

    /// The members of the `tern` object.
    public enum Key: String, CodingKey, CaseIterable, Sendable {
        /// ``TernPushPayload/version``.
        case version = "v"
        /// ``TernPushPayload/messageId``.
        case messageId = "message_id"
        /// ``TernPushPayload/mediaURL``.
        case mediaURL = "media_url"
        /// ``TernPushPayload/buttons``.
        case buttons
        /// ``TernPushPayload/clickURL``.
        case clickURL = "click_url"
        /// ``TernPushPayload/track``.
        case track
    }

    typealias CodingKeys = Key

    /// The `tern` object as JSON, as its `Codable` encoding writes it (absent members left out),
    /// without going through an encoder: the server builds each message's payload from it.
    public var json: JSONValue {
        var object: [String: JSONValue] = [
            Key.version.rawValue: .int(Int64(version)), Key.messageId.rawValue: .string(messageId),
        ]
        object[Key.mediaURL.rawValue] = mediaURL.map(JSONValue.string)
        object[Key.buttons.rawValue] = buttons.map { .array($0.map(\.json)) }
        object[Key.clickURL.rawValue] = clickURL.map(JSONValue.string)
        object[Key.track.rawValue] = track?.json
        return .object(object)
    }
}

/// A notification button.
public struct PushButton: Codable, Sendable, Equatable {
    /// What tapping the button does.
    public enum Action: String, Codable, Sendable, CaseIterable {
        /// Bring the app to the foreground.
        case open
        /// Open `url` (handed to the app's URL handler first).
        case url
        /// Dismiss the notification without opening the app.
        case dismiss
    }

    /// At most 3 buttons; APNs categories show up to 4 but Tern keeps 3 as the reference's limit.
    public static let maxCount = 3
    /// An id is 1–64 of `A–Z a–z 0–9 . _ -` (it becomes part of a notification category's action).
    public static let maxIdentifierLength = 64

    /// Why `id` cannot be a button's id, or nil: the one rule the server (when a message is made)
    /// and the SDK (when a push arrives) both hold.
    public static func identifierProblem(_ id: String) -> String? {
        if id.isEmpty { return "'id' is empty" }
        if id.utf8.count > maxIdentifierLength { return "'id' is longer than \(maxIdentifierLength) characters" }
        let allowed = id.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"):
                true
            default: false
            }
        }
        return allowed ? nil : "'id' '\(id)' may hold only letters, digits, '.', '_' and '-'"
    }

    public var id: String
    /// The button's title, as shown.
    public var title: String
    /// What tapping it does.
    public var action: Action
    /// The URL to open for ``Action/url``; nil for the others.
    public var url: String?

    /// A button.
    ///
    /// - Parameters:
    ///   - id: Its id (see ``identifierProblem(_:)``).
    ///   - title: Its title.
    ///   - action: What tapping it does.
    ///   - url: The URL for `url` buttons; default nil.
    public init(id: String, title: String, action: Action, url: String? = nil) {
        self.id = id
        self.title = title
        self.action = action
        self.url = url
    }

    /// The members of a button object.
    public enum Key: String, CodingKey, CaseIterable, Sendable {
        /// ``PushButton/id``.
        case id
        /// ``PushButton/title``.
        case title
        /// ``PushButton/action``.
        case action
        /// ``PushButton/url``.
        case url
    }

    typealias CodingKeys = Key

    /// The button as JSON, as its `Codable` encoding writes it.
    public var json: JSONValue {
        var object: [String: JSONValue] = [
            Key.id.rawValue: .string(id), Key.title.rawValue: .string(title),
            Key.action.rawValue: .string(action.rawValue),
        ]
        object[Key.url.rawValue] = url.map(JSONValue.string)
        return .object(object)
    }
}

extension Dictionary where Key == String, Value == JSONValue {
    /// The member named by a coding key, e.g. `tern[TernPushPayload.Key.messageId]`: how a reader that
    /// checks each member itself looks members up by the keys their type declares.
    public subscript(key: some CodingKey) -> JSONValue? { self[key.stringValue] }
}
