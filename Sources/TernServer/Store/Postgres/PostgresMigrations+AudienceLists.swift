extension PostgresMigrations {
    /// ``SQLiteMigrations/audienceLists``.
    static let audienceLists = """
        CREATE TABLE audience_lists (
            message_id BIGINT NOT NULL,
            list BIGINT NOT NULL,
            profile_id BIGINT NOT NULL,
            PRIMARY KEY (message_id, list, profile_id)
        );
        """
}
