extension SQLiteMigrations {
    /// A project's frequency cap (at most `cap_pushes` messages a person in `cap_hours`; both null:
    /// none), the messages each person was sent in the window a cap looks back over, and the
    /// devices a message skipped for it. A row a person and message, at the message's send time;
    /// keyed by the person, whose few rows the fan-out counts, and by time, for pruning.
    static let frequencyCaps = """
        ALTER TABLE projects ADD COLUMN cap_pushes INTEGER;
        ALTER TABLE projects ADD COLUMN cap_hours INTEGER;
        ALTER TABLE message_skips ADD COLUMN by_frequency_cap INTEGER NOT NULL DEFAULT 0;
        CREATE TABLE push_frequency (
            profile_id INTEGER NOT NULL,
            message_id INTEGER NOT NULL,
            at INTEGER NOT NULL,
            PRIMARY KEY (profile_id, message_id)
        ) WITHOUT ROWID;
        CREATE INDEX push_frequency_at ON push_frequency (at);
        """
}
