extension SQLiteMigrations {
    /// A message's conversions: goals whose `send_message_id` is one of its push ids, read by a
    /// range of that prefix (partial: the goals that name no push cost the index nothing); and the
    /// count kept once its rows per device go (`--delivery-retention-days`).
    static let conversions = """
        CREATE INDEX goals_message ON goals (send_message_id) WHERE send_message_id IS NOT NULL;
        ALTER TABLE message_history ADD COLUMN converted INTEGER;
        """
}
