extension SQLiteMigrations {
    /// What stays of a message once `--delivery-retention-days` removed its rows per device (its
    /// deliveries, their outcomes and runs, the devices' reports): the funnel's figures that were
    /// read from those rows. The counts per status stay in `message_counts`. `failed_by_reason`
    /// (a JSON object) is taken when the removal begins; `delivered` and `opened` once the
    /// deliveries are gone, when no report can be counted any more; `finished_at` when the last row
    /// went. A message with a row here shows no deliveries page.
    static let messageHistory = """
        CREATE TABLE message_history (
            message_id INTEGER PRIMARY KEY,
            failed_by_reason TEXT NOT NULL,
            delivered INTEGER,
            opened INTEGER,
            removed_at INTEGER NOT NULL,
            finished_at INTEGER
        );
        """
}
