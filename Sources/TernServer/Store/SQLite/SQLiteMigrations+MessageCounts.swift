extension SQLiteMigrations {
    /// Each message's deliveries counted by status in one row (`message_counts`), moved by every
    /// write that changes a status, so a message's progress reads one row, for ten deliveries as for
    /// a million. It replaces `deliveries_message_status`, which every claim and outcome rewrote
    /// twice and every progress poll walked whole; the failed ones keep a small index for the
    /// funnel's reasons.
    static let messageCounts = """
        CREATE TABLE message_counts (
            message_id INTEGER PRIMARY KEY REFERENCES messages (id),
            queued INTEGER NOT NULL,
            sending INTEGER NOT NULL,
            sent INTEGER NOT NULL,
            failed INTEGER NOT NULL,
            invalid_token INTEGER NOT NULL
        );
        INSERT INTO message_counts (message_id, queued, sending, sent, failed, invalid_token)
            SELECT message_id, SUM(status = 'queued'), SUM(status = 'sending'), SUM(status = 'sent'),
                SUM(status = 'failed'), SUM(status = 'invalid_token')
            FROM deliveries GROUP BY message_id;
        DROP INDEX deliveries_message_status;
        CREATE INDEX deliveries_failed ON deliveries (message_id, reason) WHERE status = 'failed';
        """
}
