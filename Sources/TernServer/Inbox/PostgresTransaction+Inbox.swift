import Foundation
import TernProtocol
import TernSQLite

extension PostgresRow: InboxRow {}

extension PostgresTransaction {
    func inboxExpiryDays(projectId: Int64) throws -> Int? {
        try database.queryFirst("SELECT expiry_days FROM inbox_settings WHERE project_id = ?", [projectId])
            .flatMap { $0.int(0) }.map { Int($0) }
    }

    func setInboxExpiryDays(projectId: Int64, days: Int, now: Int64) throws {
        try database.run(
            """
            INSERT INTO inbox_settings (project_id, expiry_days, updated_at) VALUES (?, ?, ?)
            ON CONFLICT (project_id) DO UPDATE SET expiry_days = excluded.expiry_days, updated_at = excluded.updated_at
            """, [projectId, days, now])
    }

    func insertInboxMessage(_ message: NewInboxMessage, keep: Int, now: Int64) throws -> StoredInboxMessage? {
        let (bump, bumpParameters) = InboxSQL.bumpVersion(message.profileId)
        let version = try database.queryFirst(bump, bumpParameters)?.int(0) ?? 0
        guard
            let id = try database.queryFirst(
                InboxSQL.insert,
                [
                    message.profileId, message.sourceMessageId, message.title, message.body, message.imageURL,
                    message.link, message.data, now, message.expiresAt, version,
                ])?.int(0)
        else { return nil }
        for row in try database.query(InboxSQL.overflow, [message.profileId, now, keep]) {
            _ = try removeInboxMessage(id: row.int(0) ?? 0, profileId: message.profileId, reason: .dropped, now: now)
        }
        return try inboxMessage(id: id)
    }

    func inboxMessage(id: Int64) throws -> StoredInboxMessage? {
        try database.queryFirst("SELECT \(InboxSQL.columns) FROM inbox_messages WHERE id = ?", [id])?.inboxMessage
    }

    func liveInboxMessages(profileId: Int64, now: Int64, limit: Int) throws -> [StoredInboxMessage] {
        try database.query(InboxSQL.live, [profileId, now, limit]).map(\.inboxMessage)
    }

    func inboxChanges(profileId: Int64, afterVersion: Int64, limit: Int) throws -> [StoredInboxMessage] {
        try database.query(InboxSQL.changes, [profileId, afterVersion, limit]).map(\.inboxMessage)
    }

    func inboxExpired(profileId: Int64, upToVersion version: Int64, after: Int64, now: Int64) throws -> [Int64] {
        try database.query(InboxSQL.expired, [profileId, version, after, now]).map { $0.int(0) ?? 0 }
    }

    func inboxVersion(profileId: Int64) throws -> Int64 {
        try database.queryFirst("SELECT version FROM inbox_versions WHERE profile_id = ?", [profileId])?.int(0) ?? 0
    }

    func markInboxMessageRead(id: Int64, profileId: Int64, now: Int64) throws -> Bool {
        guard
            try database.queryFirst(
                "SELECT id FROM inbox_messages WHERE id = ? AND profile_id = ? AND read = 0 AND removed IS NULL",
                [id, profileId]) != nil
        else { return false }
        let (bump, bumpParameters) = InboxSQL.bumpVersion(profileId)
        let version = try database.queryFirst(bump, bumpParameters)?.int(0) ?? 0
        return try database.run(
            "UPDATE inbox_messages SET read = 1, version = ? WHERE id = ? AND profile_id = ?", [version, id, profileId])
            > 0
    }

    func removeInboxMessage(id: Int64, profileId: Int64, reason: InboxRemoval, now: Int64) throws -> Bool {
        guard
            try database.queryFirst(
                "SELECT id FROM inbox_messages WHERE id = ? AND profile_id = ? AND removed IS NULL", [id, profileId])
                != nil
        else { return false }
        let (bump, bumpParameters) = InboxSQL.bumpVersion(profileId)
        let version = try database.queryFirst(bump, bumpParameters)?.int(0) ?? 0
        return try database.run(InboxSQL.remove, [reason.rawValue, version, id, profileId]) > 0
    }

    func inboxUnreadCount(profileId: Int64, now: Int64) throws -> Int {
        Int(try database.queryFirst(InboxSQL.unread, [profileId, now])?.int(0) ?? 0)
    }

    func purgeInbox(before: Int64) throws {
        try database.run("DELETE FROM inbox_messages WHERE expires_at < ?", [before])
    }
}
