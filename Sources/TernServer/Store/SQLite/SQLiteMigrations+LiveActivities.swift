extension SQLiteMigrations {
    /// ActivityKit's tokens are subscriptions (channels `live_activity` and `live_activity_start`)
    /// of the device's person and resource; `activity_key` is the activity's id for the one, the
    /// activity type for the other, and null on every other row, so the partial index costs the
    /// SDK's other writes nothing. A Live Activity message's fan-out walks it by key and id.
    static let liveActivities = """
        ALTER TABLE subscriptions ADD COLUMN activity_key TEXT;
        CREATE INDEX subscriptions_activity ON subscriptions (activity_key, channel, id)
            WHERE activity_key IS NOT NULL;
        """
}
