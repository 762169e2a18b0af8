extension SQLiteMigrations {
    /// A project's APNs broadcast channels (Live Activities on iOS 18), by environment and the name
    /// the project gave each, with the id APNs made and how many broadcasts went on it.
    static let liveActivityChannels = """
        CREATE TABLE live_activity_channels (
            project_id INTEGER NOT NULL REFERENCES projects (id),
            apns_environment TEXT NOT NULL,
            name TEXT NOT NULL,
            channel_id TEXT NOT NULL,
            storage TEXT NOT NULL,
            created_at INTEGER NOT NULL,
            broadcasts INTEGER NOT NULL DEFAULT 0,
            last_event TEXT,
            last_broadcast_at INTEGER,
            PRIMARY KEY (project_id, apns_environment, name)
        ) WITHOUT ROWID;
        """
}
