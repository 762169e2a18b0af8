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
    public var title: String
    public var subtitle: String
    public var body: String
    /// The push's payload (`aps`, `tern`, custom keys) as JSON.
    public var userInfo: [String: JSONValue]
    public var categoryIdentifier: String
    public var threadIdentifier: String
    public var badge: Int?
    public var attachments: [NotificationAttachment]

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

    public init(identifier: String, fileURL: URL, kind: MediaKind, byteCount: Int) {
        self.identifier = identifier
        self.fileURL = fileURL
        self.kind = kind
        self.byteCount = byteCount
    }
}
