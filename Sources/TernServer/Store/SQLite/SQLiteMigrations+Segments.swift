extension SQLiteMigrations {
    /// Built-in segments (issue 14): the built-in fields of each subscription in columns of their
    /// own (read from its fields on every write) and `pushable` (1 for a subscribed push
    /// subscription of a known provider whose token is not marked invalid: the push rules every
    /// audience applies, kept on each write and each invalid mark), all in one covering index with
    /// the resource, so a filter on built-in fields is counted from the index alone, and in one by
    /// id, so a segment's fan-out walks its matches in id order without reading rows; tags by name
    /// and value with their subscription; saved segments per project. Rows written before get the
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
        ALTER TABLE subscriptions ADD COLUMN pushable INTEGER NOT NULL DEFAULT 0;
        UPDATE subscriptions SET pushable = CASE WHEN channel = 'push' AND status = 'subscribed' AND token <> ''
            AND provider IN ('ios-apns', 'ios-firebase', 'ios-huawei')
            AND NOT EXISTS (SELECT 1 FROM invalid_tokens i WHERE i.provider = subscriptions.provider
                AND i.token = subscriptions.token AND i.marked_at >= subscriptions.updated_at) THEN 1 ELSE 0 END;
        CREATE INDEX subscriptions_audience ON subscriptions (resource_id, pushable, session_count, app_version_key,
            last_session, first_session, foreground_time, language);
        CREATE INDEX subscriptions_audience_by_id ON subscriptions (id, resource_id, pushable, session_count,
            app_version_key, last_session, first_session, foreground_time, language);
        CREATE INDEX subscription_tags_audience ON subscription_tags (name, value, subscription_id);
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
