extension PostgresMigrations {
    /// SQLite's `SQLiteMigrations.messageCounts` in PostgreSQL's dialect: each message's deliveries
    /// counted by status, a row per connection that moved them (`countShard`), in place of the
    /// `deliveries_message_status` index.
    static let messageCounts = """
        CREATE TABLE message_counts (
            message_id BIGINT NOT NULL,
            shard BIGINT NOT NULL,
            queued BIGINT NOT NULL,
            sending BIGINT NOT NULL,
            sent BIGINT NOT NULL,
            failed BIGINT NOT NULL,
            invalid_token BIGINT NOT NULL,
            PRIMARY KEY (message_id, shard)
        );
        INSERT INTO message_counts (message_id, shard, queued, sending, sent, failed, invalid_token)
            SELECT message_id, 0, COUNT(*) FILTER (WHERE status = 'queued'), COUNT(*) FILTER (WHERE status = 'sending'),
                COUNT(*) FILTER (WHERE status = 'sent'), COUNT(*) FILTER (WHERE status = 'failed'),
                COUNT(*) FILTER (WHERE status = 'invalid_token')
            FROM deliveries GROUP BY message_id;
        DROP INDEX deliveries_message_status;
        CREATE INDEX deliveries_failed ON deliveries (message_id, reason) WHERE status = 'failed';
        """
}
