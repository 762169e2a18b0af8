extension PostgresMigrations {
    /// ``SQLiteMigrations/liveActivityChannels``.
    static let liveActivityChannels = """
        CREATE TABLE live_activity_channels (
            project_id BIGINT NOT NULL REFERENCES projects (id),
            apns_environment TEXT COLLATE "C" NOT NULL,
            name TEXT COLLATE "C" NOT NULL,
            channel_id TEXT COLLATE "C" NOT NULL,
            storage TEXT COLLATE "C" NOT NULL,
            created_at BIGINT NOT NULL,
            broadcasts BIGINT NOT NULL DEFAULT 0,
            last_event TEXT COLLATE "C",
            last_broadcast_at BIGINT,
            PRIMARY KEY (project_id, apns_environment, name)
        );
        """
}
