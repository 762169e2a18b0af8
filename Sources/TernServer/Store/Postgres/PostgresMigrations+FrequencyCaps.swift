extension PostgresMigrations {
    /// ``SQLiteMigrations/frequencyCaps``.
    static let frequencyCaps = """
        ALTER TABLE projects ADD COLUMN cap_pushes INTEGER;
        ALTER TABLE projects ADD COLUMN cap_hours INTEGER;
        ALTER TABLE message_skips ADD COLUMN by_frequency_cap BIGINT NOT NULL DEFAULT 0;
        CREATE TABLE push_frequency (
            profile_id BIGINT NOT NULL,
            message_id BIGINT NOT NULL,
            at BIGINT NOT NULL,
            PRIMARY KEY (profile_id, message_id)
        );
        CREATE INDEX push_frequency_at ON push_frequency (at);
        """
}
