import Foundation
import TernProtocol

/// A person's inbox in the store. Every change to a profile's inbox (a message put, read, deleted,
/// dropped) takes the profile's next version and stamps the message with it, so a device asks for
/// what changed after the version it last saw. Deleted and dropped messages stay as tombstones (no
/// content) until their expiry has passed, so every device learns they went.
public protocol InboxQueries {
    /// The project's inbox expiry in days, nil when it kept the default.
    func inboxExpiryDays(projectId: Int64) throws -> Int?
    /// Sets the project's inbox expiry in days.
    func setInboxExpiryDays(projectId: Int64, days: Int, now: Int64) throws
    /// Puts a message in the profile's inbox and drops the oldest live ones beyond `keep`. A copy of a
    /// push (`message.sourceMessageId` set) is put once per profile: a second time returns nil.
    func insertInboxMessage(_ message: NewInboxMessage, keep: Int, now: Int64) throws -> StoredInboxMessage?
    /// The message with this row id, whoever's it is.
    func inboxMessage(id: Int64) throws -> StoredInboxMessage?
    /// The profile's messages neither removed nor expired, newest first.
    func liveInboxMessages(profileId: Int64, now: Int64, limit: Int) throws -> [StoredInboxMessage]
    /// The profile's messages changed after `version` (tombstones included), in version order.
    func inboxChanges(profileId: Int64, afterVersion: Int64, limit: Int) throws -> [StoredInboxMessage]
    /// Row ids of live messages stamped at or before `version` whose expiry fell in (`after`, `now`].
    func inboxExpired(profileId: Int64, upToVersion version: Int64, after: Int64, now: Int64) throws -> [Int64]
    /// The profile's current inbox version (0 before its first change).
    func inboxVersion(profileId: Int64) throws -> Int64
    /// Marks the message read (nothing when it already is); true when it changed.
    func markInboxMessageRead(id: Int64, profileId: Int64, now: Int64) throws -> Bool
    /// Removes the message for `reason` (nothing when already removed), keeping a tombstone.
    func removeInboxMessage(id: Int64, profileId: Int64, reason: InboxRemoval, now: Int64) throws -> Bool
    /// Live, unexpired, unread messages of the profile.
    func inboxUnreadCount(profileId: Int64, now: Int64) throws -> Int
    /// Forgets rows whose expiry is before `before` (every device has dropped them by their date).
    func purgeInbox(before: Int64) throws
}

/// A message to put in one profile's inbox.
public struct NewInboxMessage: Sendable, Equatable {
    var profileId: Int64
    /// The push this is a copy of; nil for a message put in the inbox alone.
    var sourceMessageId: Int64?
    var title: String?
    var body: String?
    var imageURL: String?
    var link: String?
    /// Custom data as JSON text (an object).
    var data: String
    var expiresAt: Int64

    /// An inbox message for one profile.
    ///
    /// - Parameters:
    ///   - profileId: The profile whose inbox gets it.
    ///   - sourceMessageId: The push message it came from, or nil for one posted to `POST /admin/inbox`.
    ///   - title: The title shown in the inbox.
    ///   - body: The text shown in the inbox.
    ///   - imageURL: An https URL of an image to show beside it.
    ///   - link: What opening it leads to.
    ///   - data: Custom data as a JSON object's text.
    ///   - expiresAt: When it leaves the inbox, in milliseconds since 1970.
    public init(
        profileId: Int64, sourceMessageId: Int64?, title: String?, body: String?, imageURL: String?, link: String?,
        data: String, expiresAt: Int64
    ) {
        self.profileId = profileId
        self.sourceMessageId = sourceMessageId
        self.title = title
        self.body = body
        self.imageURL = imageURL
        self.link = link
        self.data = data
        self.expiresAt = expiresAt
    }
}

/// One stored inbox row: its id and state around the `NewInboxMessage` it was put with (a
/// tombstone's has no content left), whose members it shows as its own (`stored.title`).
@dynamicMemberLookup
public struct StoredInboxMessage: Sendable, Equatable {
    public var id: Int64
    var message: NewInboxMessage
    var createdAt: Int64
    var read: Bool
    /// Why it left, nil while it is in the inbox (or only expired).
    var removed: InboxRemoval?
    var version: Int64

    /// The message's values as the row's own properties: `stored.title` reads `stored.message.title`.
    ///
    /// - Parameter member: The property of `NewInboxMessage`.
    public subscript<Value>(dynamicMember member: KeyPath<NewInboxMessage, Value>) -> Value {
        message[keyPath: member]
    }

    /// The id devices see: `i_<row id>`.
    var publicId: String { Self.publicId(id) }

    static func publicId(_ id: Int64) -> String { "i_\(id)" }

    /// The row id of a public id, nil when it is not one.
    static func rowId(_ publicId: String) -> Int64? {
        guard publicId.hasPrefix("i_"), let id = Int64(publicId.dropFirst(2)), id > 0 else { return nil }
        return id
    }

    /// The message as devices see it.
    var wire: InboxMessage {
        let values = (try? JSONCoders.decoder.decode([String: JSONValue].self, from: Data(message.data.utf8))) ?? [:]
        return InboxMessage(
            id: publicId, title: message.title, body: message.body, imageURL: message.imageURL, link: message.link,
            data: values, createdAt: createdAt, expiresAt: message.expiresAt, read: read)
    }
}
