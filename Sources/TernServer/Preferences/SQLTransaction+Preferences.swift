import Foundation
import TernProtocol
import TernSQLite

/// Preferences and topics, written once for both backends (their dialects agree here).
extension SQLTransaction {
    func preferences(profileId: Int64) throws -> PreferenceMap {
        var map: PreferenceMap = [:]
        for row in try database.query(
            "SELECT channel, category, enabled FROM preferences WHERE profile_id = ?", [profileId])
        {
            map[row.string(0) ?? "", default: [:]][row.string(1) ?? ""] = (row.int(2) ?? 1) != 0
        }
        return map
    }

    func setPreferences(profileId: Int64, _ preferences: PreferenceMap, now: Int64) throws {
        for (channel, categories) in preferences.sorted(by: { $0.key < $1.key }) {
            for (category, on) in categories.sorted(by: { $0.key < $1.key }) {
                try database.run(
                    """
                    INSERT INTO preferences (profile_id, channel, category, enabled, updated_at) VALUES (?, ?, ?, ?, ?)
                    ON CONFLICT (profile_id, channel, category) DO UPDATE SET enabled = excluded.enabled,
                        updated_at = excluded.updated_at
                    """, [profileId, channel, category, on ? 1 : 0, now])
            }
        }
    }

    func profilesWithPreferenceOff(channel: String, category: String, profileIds: [Int64]) throws -> Set<Int64> {
        guard let low = profileIds.min(), let high = profileIds.max() else { return [] }
        let wanted = Set(profileIds)
        let rows = try database.query(
            """
            SELECT profile_id FROM preferences WHERE channel = ? AND category = ? AND enabled = 0
                AND profile_id >= ? AND profile_id <= ?
            """, [channel, category, low, high])
        return Set(rows.compactMap { $0.int(0) }.filter(wanted.contains))
    }

    func topicId(projectId: Int64, name: String, create: Bool, now: Int64) throws -> Int64? {
        if let id = try database.queryFirst(
            "SELECT id FROM topics WHERE project_id = ? AND name = ?", [projectId, name])?.int(0)
        {
            return id
        }
        guard create else { return nil }
        return try database.queryFirst(
            "INSERT INTO topics (project_id, name, created_at) VALUES (?, ?, ?) RETURNING id", [projectId, name, now])?
            .int(0)
    }

    func follow(topicId: Int64, profileId: Int64, now: Int64) throws -> Bool {
        try database.run(
            "INSERT INTO topic_followers (topic_id, profile_id, created_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
            [topicId, profileId, now]) > 0
    }

    func unfollow(topicId: Int64, profileId: Int64) throws -> Bool {
        try database.run(
            "DELETE FROM topic_followers WHERE topic_id = ? AND profile_id = ?", [topicId, profileId]) > 0
    }

    func topics(projectId: Int64) throws -> [TopicSummary] {
        try database.query(
            """
            SELECT t.name, t.created_at, (SELECT COUNT(*) FROM topic_followers f WHERE f.topic_id = t.id)
            FROM topics t WHERE t.project_id = ? ORDER BY t.name
            """, [projectId]
        ).map {
            TopicSummary(name: $0.string(0) ?? "", followers: $0.int(2) ?? 0, createdAt: $0.int(1) ?? 0)
        }
    }

    func followers(topicId: Int64, afterProfileId: Int64, limit: Int) throws -> [Int64] {
        try database.query(
            "SELECT profile_id FROM topic_followers WHERE topic_id = ? AND profile_id > ? ORDER BY profile_id LIMIT ?",
            [topicId, afterProfileId, limit]
        ).compactMap { $0.int(0) }
    }

    func addSkippedByPreference(messageId: Int64, count: Int) throws {
        guard count > 0 else { return }
        try database.run(
            """
            INSERT INTO message_skips (message_id, by_preference) VALUES (?, ?)
            ON CONFLICT (message_id) DO UPDATE SET by_preference = message_skips.by_preference + excluded.by_preference
            """, [messageId, count])
    }

    func skippedByPreference(messageId: Int64) throws -> Int64 {
        try database.queryFirst("SELECT by_preference FROM message_skips WHERE message_id = ?", [messageId])?.int(0)
            ?? 0
    }
}
