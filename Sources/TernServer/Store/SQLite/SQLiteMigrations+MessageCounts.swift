extension SQLiteMigrations {
    /// Each message's deliveries counted by status (`message_counts`), moved by every write that
    /// changes a status, so a message's progress reads one row (SQLite) or one per PostgreSQL
    /// connection that wrote it (`countShard`), for ten deliveries as for a million. It replaces
    /// `deliveries_message_status`, which every claim and outcome rewrote twice and every progress
    /// poll walked whole; the failed ones keep a small index for the funnel's reasons. `message_id`
    /// names its message without a foreign key: on PostgreSQL the key's check would lock the
    /// message's row in every claim and outcome, against the fan-out's own lock on it (the fan-out
    /// then waiting for the claim's turns: a deadlock).
    static let messageCounts = """
        CREATE TABLE message_counts (
            message_id INTEGER NOT NULL,
            shard INTEGER NOT NULL,
            queued INTEGER NOT NULL,
            sending INTEGER NOT NULL,
            sent INTEGER NOT NULL,
            failed INTEGER NOT NULL,
            invalid_token INTEGER NOT NULL,
            PRIMARY KEY (message_id, shard)
        );
        INSERT INTO message_counts (message_id, shard, queued, sending, sent, failed, invalid_token)
            SELECT message_id, 0, SUM(status = 'queued'), SUM(status = 'sending'), SUM(status = 'sent'),
                SUM(status = 'failed'), SUM(status = 'invalid_token')
            FROM deliveries GROUP BY message_id;
        DROP INDEX deliveries_message_status;
        CREATE INDEX deliveries_failed ON deliveries (message_id, reason) WHERE status = 'failed';
        """
}
