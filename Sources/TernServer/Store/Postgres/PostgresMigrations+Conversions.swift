extension PostgresMigrations {
    /// ``SQLiteMigrations/conversions``.
    static let conversions = """
        CREATE INDEX goals_message ON goals (send_message_id) WHERE send_message_id IS NOT NULL;
        ALTER TABLE message_history ADD COLUMN converted BIGINT;
        """
}
