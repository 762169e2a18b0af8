extension SQLiteMigrations {
    /// A project's webhooks (its events as `,push.sent,push.opened,`, so one is found with `LIKE`)
    /// and their outbox, an event a row per webhook, found by webhook and due time.
    static let webhooks = """
        CREATE TABLE webhooks (
            id INTEGER PRIMARY KEY,
            project_id INTEGER NOT NULL REFERENCES projects (id),
            url TEXT NOT NULL,
            secret TEXT NOT NULL,
            events TEXT NOT NULL,
            created_at INTEGER NOT NULL,
            dropped INTEGER NOT NULL DEFAULT 0,
            last_status INTEGER,
            last_error TEXT,
            last_attempt_at INTEGER,
            last_success_at INTEGER
        );
        CREATE INDEX webhooks_project ON webhooks (project_id);
        CREATE TABLE webhook_events (
            id INTEGER PRIMARY KEY,
            webhook_id INTEGER NOT NULL,
            body TEXT NOT NULL,
            created_at INTEGER NOT NULL,
            due_at INTEGER NOT NULL,
            attempts INTEGER NOT NULL DEFAULT 0
        );
        CREATE INDEX webhook_events_due ON webhook_events (webhook_id, due_at, id);
        """
}
