extension SQLiteMigrations {
    /// Built-in segments (issue 14): the built-in fields of each subscription in columns of their
    /// own (read from its fields on every write), each indexed with the resource for audience
    /// filters; saved segments per project. Rows written before keep their fields and get the
    /// numeric and text columns here; `app_version_key` fills on their next write (the SDK reports
    /// at each session).
    static let segments = """
        ALTER TABLE subscriptions ADD COLUMN app_version_key TEXT;
        ALTER TABLE subscriptions ADD COLUMN language TEXT;
        ALTER TABLE subscriptions ADD COLUMN first_session INTEGER;
        ALTER TABLE subscriptions ADD COLUMN last_session INTEGER;
        ALTER TABLE subscriptions ADD COLUMN session_count INTEGER;
        ALTER TABLE subscriptions ADD COLUMN foreground_time INTEGER;
        UPDATE subscriptions SET
            language = CASE WHEN json_type(fields, '$._os_language') = 'text'
                THEN json_extract(fields, '$._os_language') END,
            first_session = CASE WHEN json_type(fields, '$._first_session') IN ('integer', 'real')
                THEN CAST(json_extract(fields, '$._first_session') AS INTEGER) END,
            last_session = CASE WHEN json_type(fields, '$._last_session') IN ('integer', 'real')
                THEN CAST(json_extract(fields, '$._last_session') AS INTEGER) END,
            session_count = CASE WHEN json_type(fields, '$._session_count') IN ('integer', 'real')
                THEN CAST(json_extract(fields, '$._session_count') AS INTEGER) END,
            foreground_time = CASE WHEN json_type(fields, '$._foreground_time') IN ('integer', 'real')
                THEN CAST(json_extract(fields, '$._foreground_time') AS INTEGER) END;
        CREATE INDEX subscriptions_app_version ON subscriptions (resource_id, app_version_key);
        CREATE INDEX subscriptions_language ON subscriptions (resource_id, language);
        CREATE INDEX subscriptions_first_session ON subscriptions (resource_id, first_session);
        CREATE INDEX subscriptions_last_session ON subscriptions (resource_id, last_session);
        CREATE INDEX subscriptions_session_count ON subscriptions (resource_id, session_count);
        CREATE INDEX subscriptions_foreground_time ON subscriptions (resource_id, foreground_time);
        CREATE TABLE segments (
            id INTEGER PRIMARY KEY,
            project_id INTEGER NOT NULL REFERENCES projects (id),
            resource_id INTEGER REFERENCES resources (id),
            name TEXT NOT NULL,
            filter TEXT NOT NULL,
            created_at INTEGER NOT NULL,
            updated_at INTEGER NOT NULL,
            UNIQUE (project_id, name)
        );
        """
}
