import Foundation
import TernProtocol

/// A notification's content as a value: what the extension receives and what it hands back.
///
/// The Apple glue builds it from `UNNotificationContent`; tests, the simulated device and the
/// benchmark build it directly.
///
/// ```swift
/// let content = NotificationContent(title: "Sale", body: "30% off", userInfo: payload)
/// ```
public struct NotificationContent: Sendable, Equatable {
    /// The notification's title.
    public var title: String
    /// Its subtitle.
    public var subtitle: String
    /// Its body text.
    public var body: String
    /// The push's payload (`aps`, `tern`, custom keys) as JSON.
    public var userInfo: [String: JSONValue]
    /// The category whose actions it shows (`tern.<message id>` for a Tern push with buttons).
    public var categoryIdentifier: String
    /// The thread it is grouped in.
    public var threadIdentifier: String
    /// The app badge number it sets; nil leaves the badge alone.
    public var badge: Int?
    /// Its media attachments.
    public var attachments: [NotificationAttachment]

    /// A notification's content; every part defaults to empty.
    ///
    /// - Parameters:
    ///   - title: The title; default "".
    ///   - subtitle: The subtitle; default "".
    ///   - body: The body; default "".
    ///   - userInfo: The payload; default empty.
    ///   - categoryIdentifier: The category; default "".
    ///   - threadIdentifier: The thread; default "".
    ///   - badge: The badge; default nil.
    ///   - attachments: The attachments; default none.
    public init(
        title: String = "", subtitle: String = "", body: String = "", userInfo: [String: JSONValue] = [:],
        categoryIdentifier: String = "", threadIdentifier: String = "", badge: Int? = nil,
        attachments: [NotificationAttachment] = []
    ) {
        self.title = title
        self.subtitle = subtitle
        self.body = body
        self.userInfo = userInfo
        self.categoryIdentifier = categoryIdentifier
        self.threadIdentifier = threadIdentifier
        self.badge = badge
        self.attachments = attachments
    }
}

/// A file attached to a notification.
public struct NotificationAttachment: Sendable, Equatable {
    /// Unique within the notification.
    public var identifier: String
    /// The file; its extension matches ``kind``.
    public var fileURL: URL
    /// The type read from the file's first bytes.
    public var kind: MediaKind
    /// The file's size in bytes.
    public var byteCount: Int

    /// An attachment.
    ///
    /// - Parameters:
    ///   - identifier: Unique within the notification.
    ///   - fileURL: The file.
    ///   - kind: Its type.
    ///   - byteCount: Its size in bytes.
    public init(identifier: String, fileURL: URL, kind: MediaKind, byteCount: Int) {
        self.identifier = identifier
        self.fileURL = fileURL
        self.kind = kind
        self.byteCount = byteCount
    }
}
