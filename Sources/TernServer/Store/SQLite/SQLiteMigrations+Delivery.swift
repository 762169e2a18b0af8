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

    /// Messages take turns in the outbox: one row per message with deliveries queued or leased,
    /// when its next one falls due, and its place in the round. A claim serves the messages due in
    /// turn order, each its share, so a small message sent while a campaign to a million devices
    /// runs goes out in the next batch rather than after the campaign.
    static let deliveryTurns = """
        CREATE TABLE delivery_turns (
            message_id INTEGER PRIMARY KEY REFERENCES messages (id),
            next_due INTEGER NOT NULL,
            turn INTEGER NOT NULL
        );
        CREATE INDEX delivery_turns_due ON delivery_turns (next_due);
        CREATE INDEX deliveries_message_due ON deliveries (message_id, due_at) WHERE status IN ('queued', 'sending');
        INSERT INTO delivery_turns (message_id, next_due, turn)
            SELECT message_id, MIN(due_at), 0 FROM deliveries WHERE status IN ('queued', 'sending')
            GROUP BY message_id;
        DROP INDEX deliveries_due;
        """
}
