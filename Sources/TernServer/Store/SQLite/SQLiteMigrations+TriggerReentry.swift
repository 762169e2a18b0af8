extension SQLiteMigrations {
    /// Triggered messages a person gets again (`reentry_after_minutes`): the message's re-entry
    /// time (ms); a round's message names its triggered message and its round, one message a round
    /// (`messages_trigger_rounds`, which also finds a message's rounds). A person's row of
    /// `trigger_runs` now outlives their wait for such a message: `due_at` is null between waits,
    /// `went_at` is when the message last went to them, `round` the round their next wait goes
    /// through. SQLite cannot drop a column's NOT NULL, so the table is made again; its index
    /// holds the waits only.
    static let triggerReentry = """
        ALTER TABLE messages ADD COLUMN trigger_reentry INTEGER;
        ALTER TABLE messages ADD COLUMN trigger_round_of TEXT;
        ALTER TABLE messages ADD COLUMN trigger_round INTEGER;
        CREATE UNIQUE INDEX messages_trigger_rounds ON messages (trigger_round_of, trigger_round)
            WHERE trigger_round_of IS NOT NULL;
        CREATE TABLE trigger_runs_between (
            message_id INTEGER NOT NULL REFERENCES messages (id),
            profile_id INTEGER NOT NULL REFERENCES profiles (id) ON DELETE CASCADE,
            due_at INTEGER,
            round INTEGER NOT NULL DEFAULT 1,
            went_at INTEGER,
            PRIMARY KEY (message_id, profile_id)
        );
        INSERT INTO trigger_runs_between (message_id, profile_id, due_at)
            SELECT message_id, profile_id, due_at FROM trigger_runs;
        DROP TABLE trigger_runs;
        ALTER TABLE trigger_runs_between RENAME TO trigger_runs;
        CREATE INDEX trigger_runs_due ON trigger_runs (due_at) WHERE due_at IS NOT NULL;
        """
}
