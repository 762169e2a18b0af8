import Foundation
import TernSQLite

extension SQLTransaction {
    /// A profile's identity bindings, as the user's or as the install's anonymous profile, by
    /// `identity_installations_profile` and `identity_installations_anonymous`. Binds the profile twice.
    static var profileInstallationsQuery: String {
        "SELECT id FROM identity_installations WHERE profile_id = ? OR anonymous_profile_id = ?"
    }

    func goalIdRange() throws -> ClosedRange<Int64>? {
        guard let row = try database.queryFirst("SELECT MIN(id), MAX(id) FROM goals", []),
            let first = row.int(0), let last = row.int(1)
        else { return nil }
        return first...last
    }

    /// Read backwards by the key: past the profile's own last goals, to the first that is not.
    func lastGoalId(notOf profileId: Int64) throws -> Int64 {
        try database.queryFirst(
            "SELECT id FROM goals WHERE profile_id IS NULL OR profile_id <> ? ORDER BY id DESC LIMIT 1", [profileId]
        )?.int(0) ?? 0
    }

    /// The range is read by the key and each row's profile tested.
    func eraseGoals(of profileId: Int64, ids: ClosedRange<Int64>) throws -> Int {
        try database.run(
            "DELETE FROM goals WHERE id >= ? AND id <= ? AND profile_id = ?",
            [ids.lowerBound, ids.upperBound, profileId])
    }

    /// The whole table is read.
    func goals(profileId: Int64) throws -> [GoalRecord] {
        try database.query("SELECT \(Self.goalColumns) FROM goals WHERE profile_id = ? ORDER BY id", [profileId])
            .map(Self.goal)
    }

    func identityBindings(profileId: Int64) throws -> [ExportedBinding] {
        try database.query(
            """
            SELECT resource_id, provider, token, external_id, mode, updated_at FROM identity_installations
            WHERE id IN (\(Self.profileInstallationsQuery)) ORDER BY id
            """, [profileId, profileId]
        ).map { row in
            ExportedBinding(
                resourceId: row.requiredInt(0), provider: row.requiredString(1), token: row.requiredString(2),
                externalId: row.string(3), mode: row.string(4), updatedAt: row.requiredInt(5))
        }
    }

    /// One probe of the followers' key for each topic of the project.
    func followedTopics(profileId: Int64, dbId: Int64) throws -> [String] {
        try database.query(
            """
            SELECT t.name FROM topics t JOIN profile_databases d ON d.project_id = t.project_id
            JOIN topic_followers f ON f.topic_id = t.id AND f.profile_id = ?
            WHERE d.id = ? ORDER BY t.name
            """, [profileId, dbId]
        ).map { $0.requiredString(0) }
    }

    func eraseProfile(_ profile: Profile, goalsAfter: Int64, now: Int64) throws -> ProfileErasure {
        let id = profile.id
        var erasure = ProfileErasure.none(profile.publicId)
        erasure.goals = try eraseGoals(of: id, ids: (goalsAfter + 1)...Int64.max)
        // SQLite does not enforce the operations' foreign key (PostgreSQL would cascade).
        try database.run(
            "DELETE FROM identity_operations WHERE installation_id IN (\(Self.profileInstallationsQuery))", [id, id])
        erasure.identityInstallations = try database.run(
            "DELETE FROM identity_installations WHERE id IN (\(Self.profileInstallationsQuery))", [id, id])

        // Tags first (SQLite does not cascade), then the subscriptions: their trigger takes them out
        // of the audience counts.
        let subscriptions = try subscriptions(profileId: id)
        for subscription in subscriptions { try clearTags(subscriptionId: subscription.id) }
        erasure.subscriptions = try database.run("DELETE FROM subscriptions WHERE profile_id = ?", [id])
        // A token's invalid mark says something of the device only while a subscription holds it.
        let devices = Set(
            subscriptions.compactMap { subscription in
                subscription.provider.map { DeliveryTarget.Device(provider: $0, token: subscription.token) }
            })
        for device in devices {
            erasure.invalidTokens += try database.run(
                """
                DELETE FROM invalid_tokens WHERE provider = ? AND token = ?
                    AND NOT EXISTS (SELECT 1 FROM subscriptions WHERE provider = ? AND token = ?)
                """, [device.provider.rawValue, device.token, device.provider.rawValue, device.token])
            // Outcomes and subscriptions' changes waiting for a webhook name the token (`token`,
            // `previous_token`); reports name only the delivery.
            try database.run(
                #"DELETE FROM webhook_events WHERE body LIKE ? ESCAPE '\'"#,
                [Self.webhookPattern("token", device.token)])
        }
        // Goals, subscriptions' changes, in-app events and inbox changes name the profile.
        try database.run(
            #"DELETE FROM webhook_events WHERE body LIKE ? ESCAPE '\'"#,
            [Self.webhookPattern("\"profile_id", profile.publicId)])

        erasure.fields = try database.run("DELETE FROM profile_fields WHERE profile_id = ?", [id])
        erasure.inboxMessages = try database.run("DELETE FROM inbox_messages WHERE profile_id = ?", [id])
        try database.run("DELETE FROM inbox_versions WHERE profile_id = ?", [id])
        // Which messages the person was sent, as the frequency cap counts them.
        try database.run("DELETE FROM push_frequency WHERE profile_id = ?", [id])
        // When the person usually opens pushes.
        try database.run("DELETE FROM open_hours WHERE profile_id = ?", [id])
        try database.run("DELETE FROM trigger_runs WHERE profile_id = ?", [id])
        // Which messages held the person out, or went to them, as their control groups count them.
        try database.run("DELETE FROM control_group_people WHERE profile_id = ?", [id])
        erasure.preferences = try database.run("DELETE FROM preferences WHERE profile_id = ?", [id])
        // The followers' key leads with the topic: one probe for each of the database's project's topics.
        erasure.preferences += try database.run(
            """
            DELETE FROM topic_followers WHERE profile_id = ? AND topic_id IN (
                SELECT t.id FROM topics t JOIN profile_databases d ON d.project_id = t.project_id WHERE d.id = ?)
            """, [id, profile.dbId])

        try database.run(
            "UPDATE profiles SET public_id = ?, is_test = ?, skip_triggers = ?, updated_at = ? WHERE id = ?",
            [Profile.erasedPrefix + String(id), false, false, now, id])
        return erasure
    }

    /// A `LIKE` pattern of the events whose JSON has `value` under a key ending in `key` (`token`
    /// matches `previous_token` too; `"profile_id` only itself), their wildcards escaped.
    static func webhookPattern(_ key: String, _ value: String) -> String {
        func escaped(_ text: String) -> String {
            var escaped = ""
            for character in text {
                if character == "%" || character == "_" || character == "\\" { escaped.append("\\") }
                escaped.append(character)
            }
            return escaped
        }
        return #"%\#(escaped(key))":"\#(escaped(value))"%"#
    }
}
