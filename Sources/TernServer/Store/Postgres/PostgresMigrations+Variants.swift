extension PostgresMigrations {
    /// ``SQLiteMigrations/messageVariants``.
    static let messageVariants = """
        ALTER TABLE messages ADD COLUMN variant_payloads BYTEA;
        ALTER TABLE message_history ADD COLUMN variants TEXT;
        ALTER TABLE messages ADD COLUMN winner_message_id TEXT COLLATE "C";
        """
}
