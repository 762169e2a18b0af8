extension SQLiteMigrations {
    /// Triggered messages: the goal that sends one to its person, the goal that keeps a waiting one
    /// from going, the delay (ms); null for every other message, so `messages_triggers` holds the
    /// triggered ones only. Each person's wait, by its key and by when it is due.
    static let triggers = """
        ALTER TABLE messages ADD COLUMN trigger_event TEXT;
        ALTER TABLE messages ADD COLUMN trigger_cancel_event TEXT;
        ALTER TABLE messages ADD COLUMN trigger_delay INTEGER;
        CREATE INDEX messages_triggers ON messages (id) WHERE trigger_event IS NOT NULL;
        CREATE TABLE trigger_runs (
            message_id INTEGER NOT NULL REFERENCES messages (id),
            profile_id INTEGER NOT NULL REFERENCES profiles (id) ON DELETE CASCADE,
            due_at INTEGER NOT NULL,
            PRIMARY KEY (message_id, profile_id)
        );
        CREATE INDEX trigger_runs_due ON trigger_runs (due_at);
        """
}
