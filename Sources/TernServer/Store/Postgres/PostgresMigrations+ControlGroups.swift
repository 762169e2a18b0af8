extension PostgresMigrations {
    /// ``SQLiteMigrations/controlGroups``.
    static let controlGroups = """
        CREATE TABLE control_group_people (
            message_id BIGINT NOT NULL REFERENCES messages (id),
            profile_id BIGINT NOT NULL REFERENCES profiles (id) ON DELETE CASCADE,
            held_out INTEGER NOT NULL,
            PRIMARY KEY (message_id, profile_id)
        );
        CREATE INDEX control_group_people_profile ON control_group_people (profile_id);
        """
}
