extension PostgresMigrations {
    /// ``SQLiteMigrations/triggers``.
    static let triggers = """
        ALTER TABLE messages ADD COLUMN trigger_event TEXT COLLATE "C";
        ALTER TABLE messages ADD COLUMN trigger_cancel_event TEXT COLLATE "C";
        ALTER TABLE messages ADD COLUMN trigger_delay BIGINT;
        CREATE INDEX messages_triggers ON messages (id) WHERE trigger_event IS NOT NULL;
        CREATE TABLE trigger_runs (
            message_id BIGINT NOT NULL REFERENCES messages (id),
            profile_id BIGINT NOT NULL REFERENCES profiles (id) ON DELETE CASCADE,
            due_at BIGINT NOT NULL,
            PRIMARY KEY (message_id, profile_id)
        );
        CREATE INDEX trigger_runs_due ON trigger_runs (due_at);
        """
}
