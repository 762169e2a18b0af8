import Foundation
import TernProtocol
import TernSQLite

/// The inbox's queries, written once for both backends (their dialects agree here: both upsert
/// with `ON CONFLICT` and answer `RETURNING`).
extension SQLTransaction {
    /// The columns every inbox query reads, in `StoredInboxMessage`'s order.
    private static var inboxColumns: String {
        "id, profile_id, message_id, title, body, image_url, link, data, created_at, expires_at, read, removed, version"
    }

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
        let version = try bumpInboxVersion(profileId: message.profileId)
        guard
            let id = try database.queryFirst(
                """
                INSERT INTO inbox_messages (profile_id, message_id, title, body, image_url, link, data, created_at,
                    expires_at, read, removed, version)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0, NULL, ?) ON CONFLICT DO NOTHING RETURNING id
                """,
                [
                    message.profileId, message.sourceMessageId, message.title, message.body, message.imageURL,
                    message.link, message.data, now, message.expiresAt, version,
                ])?.int(0)
        else { return nil }
        // Live rows beyond the newest `keep` (LIMIT/OFFSET as both backends read it).
        for row in try database.query(
            """
            SELECT id FROM inbox_messages WHERE profile_id = ? AND removed IS NULL AND expires_at > ?
            ORDER BY created_at DESC, id DESC LIMIT 1000000 OFFSET ?
            """, [message.profileId, now, keep])
        {
            _ = try removeInboxMessage(id: row.int(0) ?? 0, profileId: message.profileId, reason: .dropped, now: now)
        }
        return try inboxMessage(id: id)
    }

    func inboxMessage(id: Int64) throws -> StoredInboxMessage? {
        try database.queryFirst("SELECT \(Self.inboxColumns) FROM inbox_messages WHERE id = ?", [id])
            .map(Self.storedInboxMessage)
    }

    func liveInboxMessages(profileId: Int64, now: Int64, limit: Int) throws -> [StoredInboxMessage] {
        try database.query(
            """
            SELECT \(Self.inboxColumns) FROM inbox_messages WHERE profile_id = ? AND removed IS NULL AND expires_at > ?
            ORDER BY created_at DESC, id DESC LIMIT ?
            """, [profileId, now, limit]
        ).map(Self.storedInboxMessage)
    }

    func inboxChanges(profileId: Int64, afterVersion: Int64, limit: Int) throws -> [StoredInboxMessage] {
        try database.query(
            """
            SELECT \(Self.inboxColumns) FROM inbox_messages WHERE profile_id = ? AND version > ? ORDER BY version LIMIT ?
            """, [profileId, afterVersion, limit]
        ).map(Self.storedInboxMessage)
    }

    func inboxExpired(profileId: Int64, upToVersion version: Int64, after: Int64, now: Int64) throws -> [Int64] {
        try database.query(
            """
            SELECT id FROM inbox_messages WHERE profile_id = ? AND removed IS NULL AND version <= ?
                AND expires_at > ? AND expires_at <= ? ORDER BY id
            """, [profileId, version, after, now]
        ).map { $0.int(0) ?? 0 }
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
        let version = try bumpInboxVersion(profileId: profileId)
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
        let version = try bumpInboxVersion(profileId: profileId)
        return try database.run(
            """
            UPDATE inbox_messages SET removed = ?, version = ?, title = NULL, body = NULL, image_url = NULL,
                link = NULL, data = '{}' WHERE id = ? AND profile_id = ? AND removed IS NULL
            """, [reason.rawValue, version, id, profileId]) > 0
    }

    func inboxUnreadCount(profileId: Int64, now: Int64) throws -> Int {
        Int(
            try scalar(
                """
                SELECT COUNT(*) FROM inbox_messages
                WHERE profile_id = ? AND removed IS NULL AND read = 0 AND expires_at > ?
                """, [profileId, now]))
    }

    func purgeInbox(before: Int64) throws {
        try database.run("DELETE FROM inbox_messages WHERE expires_at < ?", [before])
    }

    /// The profile's next inbox version: every change takes one.
    private func bumpInboxVersion(profileId: Int64) throws -> Int64 {
        try scalar(
            """
            INSERT INTO inbox_versions (profile_id, version) VALUES (?, 1)
            ON CONFLICT (profile_id) DO UPDATE SET version = inbox_versions.version + 1 RETURNING version
            """, [profileId])
    }

    /// `inboxColumns` as a `StoredInboxMessage`.
    private static func storedInboxMessage(_ row: Connection.Row) -> StoredInboxMessage {
        StoredInboxMessage(
            id: row.requiredInt(0),
            message: NewInboxMessage(
                profileId: row.requiredInt(1), sourceMessageId: row.int(2), title: row.string(3), body: row.string(4),
                imageURL: row.string(5), link: row.string(6), data: row.string(7) ?? "{}",
                expiresAt: row.requiredInt(9)),
            createdAt: row.requiredInt(8), read: row.requiredInt(10) != 0,
            removed: row.string(11).flatMap(InboxRemoval.init), version: row.requiredInt(12))
    }
}
