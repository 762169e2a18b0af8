extension SQLiteMigrations {
    /// Messages, the delivery outbox, and invalid push tokens.
    static let deliveryTables = """
        CREATE TABLE messages (
            id INTEGER PRIMARY KEY,
            public_id TEXT NOT NULL UNIQUE,
            project_id INTEGER NOT NULL REFERENCES projects (id),
            resource_id INTEGER REFERENCES resources (id),
            content TEXT NOT NULL,
            audience TEXT NOT NULL,
            payload_prefix BLOB NOT NULL,
            payload_suffix BLOB NOT NULL,
            push_type TEXT NOT NULL,
            priority INTEGER,
            expiration INTEGER,
            collapse_id TEXT,
            topic TEXT,
            environment TEXT NOT NULL,
            fan_out_cursor INTEGER NOT NULL,
            fan_out_done INTEGER NOT NULL,
            total INTEGER NOT NULL,
            created_at INTEGER NOT NULL
        );
        CREATE INDEX messages_fanning_out ON messages (id) WHERE fan_out_done = 0;
        CREATE TABLE deliveries (
            id INTEGER PRIMARY KEY,
            message_id INTEGER NOT NULL REFERENCES messages (id),
            subscription_id INTEGER NOT NULL,
            provider TEXT NOT NULL,
            token TEXT NOT NULL,
            status TEXT NOT NULL,
            attempts INTEGER NOT NULL,
            due_at INTEGER,
            reason TEXT,
            provider_message_id TEXT,
            updated_at INTEGER NOT NULL,
            UNIQUE (message_id, provider, token)
        );
        CREATE INDEX deliveries_due ON deliveries (due_at) WHERE status IN ('queued', 'sending');
        CREATE INDEX deliveries_message_status ON deliveries (message_id, status);
        CREATE TABLE invalid_tokens (
            provider TEXT NOT NULL,
            token TEXT NOT NULL,
            reason TEXT NOT NULL,
            marked_at INTEGER NOT NULL,
            PRIMARY KEY (provider, token)
        );
        CREATE INDEX subscriptions_push_by_resource ON subscriptions (resource_id, id) WHERE channel = 'push';
        """
}
