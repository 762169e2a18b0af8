import Foundation

/// One message of a person's inbox as the SDK receives it (`inbox/list`).
public struct InboxMessage: Codable, Sendable, Equatable, Identifiable {
    /// The message's id, e.g. `i_42`: what `inbox/read` and `inbox/delete` name.
    public var id: String
    /// The message's title.
    public var title: String?
    /// The message's text.
    public var body: String?
    /// An https URL of the message's image.
    public var imageURL: String?
    /// What a tap opens.
    public var link: String?
    /// The sender's custom data.
    public var data: [String: JSONValue]
    /// When it was put in the inbox, ms since 1970.
    public var createdAt: Int64
    /// When it leaves the inbox, ms since 1970.
    public var expiresAt: Int64
    /// True once the person read it on any of their devices.
    public var read: Bool

    /// A message as the server lists it.
    public init(
        id: String, title: String? = nil, body: String? = nil, imageURL: String? = nil, link: String? = nil,
        data: [String: JSONValue] = [:], createdAt: Int64, expiresAt: Int64, read: Bool = false
    ) {
        self.id = id
        self.title = title
        self.body = body
        self.imageURL = imageURL
        self.link = link
        self.data = data
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.read = read
    }

    enum CodingKeys: String, CodingKey {
        case id, title, body, link, data, read
        case imageURL = "image_url"
        case createdAt = "created_at"
        case expiresAt = "expires_at"
    }
}

/// `inbox/list`: what changed since `cursor` (everything live when nil), at most `limit` changes.
public struct InboxListRequest: Codable, Sendable, Equatable {
    /// The `cursor` of the last answer the device applied; nil for a first sync.
    public var cursor: String?
    /// Most changes in one answer (1 to ``InboxLimits/maxMessages``; that many when nil).
    public var limit: Int?

    /// A list request.
    public init(cursor: String? = nil, limit: Int? = nil) {
        self.cursor = cursor
        self.limit = limit
    }
}

/// Why a message left the inbox.
public enum InboxRemoval: String, Codable, Sendable, Equatable {
    /// Deleted on one of the person's devices.
    case deleted
    /// Its days ran out.
    case expired
    /// Pushed out by newer messages (an inbox keeps its newest ``InboxLimits/maxMessages``).
    case dropped
}

/// A message that left the inbox since the cursor.
public struct InboxRemoved: Codable, Sendable, Equatable {
    public var id: String
    /// Why it left.
    public var reason: InboxRemoval

    /// A removal.
    public init(id: String, reason: InboxRemoval) {
        self.id = id
        self.reason = reason
    }
}

/// The answer to `inbox/list`: messages new or changed (read) since the cursor, the ones that left,
/// the cursor to send next time, the unread count, and whether more changes wait (ask again with
/// the new cursor).
public struct InboxListAnswer: Codable, Sendable, Equatable {
    /// Messages new or changed (read) since the cursor.
    public var messages: [InboxMessage]
    /// Messages that left since the cursor.
    public var removed: [InboxRemoved]
    /// The cursor to send next time.
    public var cursor: String
    /// Messages neither read nor expired, now.
    public var unread: Int
    /// True when more changes wait: ask again with `cursor`.
    public var more: Bool
    /// True when the cursor was not understood or too old: the device replaces its copy with `messages`.
    public var reset: Bool

    /// An answer.
    public init(
        messages: [InboxMessage], removed: [InboxRemoved], cursor: String, unread: Int, more: Bool, reset: Bool
    ) {
        self.messages = messages
        self.removed = removed
        self.cursor = cursor
        self.unread = unread
        self.more = more
        self.reset = reset
    }
}

/// `inbox/read` and `inbox/delete`: one message of the signed-in person's inbox.
public struct InboxMessageRequest: Codable, Sendable, Equatable {
    public var id: String

    /// A request about message `id`.
    public init(id: String) { self.id = id }
}

/// The answer to `inbox/unread`.
public struct InboxUnreadAnswer: Codable, Sendable, Equatable {
    /// Messages neither read nor expired.
    public var unread: Int

    /// An answer.
    public init(unread: Int) { self.unread = unread }
}

/// The inbox's rules, the same on both halves.
public enum InboxLimits {
    /// An inbox keeps its newest 250 messages.
    public static let maxMessages = 250
    /// A message stays 90 days unless its project says otherwise.
    public static let defaultExpiryDays = 90
    /// The longest a project may keep a message.
    public static let maxExpiryDays = 3650
    /// Longest message id, in bytes.
    public static let maxIdBytes = 64

    /// Why `id` cannot be an inbox message id, nil when it can.
    public static func problem(id: String) -> String? {
        if id.isEmpty { return "id is empty: name an inbox message (e.g. i_42)" }
        if id.utf8.count > maxIdBytes { return "id is longer than \(maxIdBytes) bytes" }
        return nil
    }
}
