extension SQLiteMigrations {
    /// Issue 18: `delivery_sent_runs`, a row for a run of a chunk's deliveries that its lease held
    /// and its senders answered `sent` on their first attempt without an id of the provider's
    /// own to keep (APNs echoes the `apns-id` Tern made from the message and the delivery). Such a
    /// run of ids in one lease (`first_id`…`last_id`, all of its message) has the outcome of each
    /// of them: sent, attempt 1, at `at`. Before, each one appended its own row to
    /// `delivery_outcomes`: a fifth of the database's time in a send on PostgreSQL, and a row a
    /// device of every campaign. Outcomes of every other kind (a retry's, a failure's, a sent one
    /// with the provider's own id, any later attempt's) are still appended there.
    ///
    /// Keyed by the message and the run's last id: runs of a message never overlap, so the run
    /// that may hold a delivery is the first whose last id is not below the delivery's.
    static let sentRuns = """
        CREATE TABLE delivery_sent_runs (
            message_id INTEGER NOT NULL,
            last_id INTEGER NOT NULL,
            first_id INTEGER NOT NULL,
            at INTEGER NOT NULL,
            PRIMARY KEY (message_id, last_id)
        ) WITHOUT ROWID;
        """
}
