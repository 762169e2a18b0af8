extension PostgresMigrations {
    /// ``SQLiteMigrations/liveActivities``.
    static let liveActivities = """
        ALTER TABLE subscriptions ADD COLUMN activity_key TEXT COLLATE "C";
        CREATE INDEX subscriptions_activity ON subscriptions (activity_key, channel, id)
            WHERE activity_key IS NOT NULL;
        """
}
