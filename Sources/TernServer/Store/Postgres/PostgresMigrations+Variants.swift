extension PostgresMigrations {
    /// ``SQLiteMigrations/messageVariants``.
    static let messageVariants = """
        ALTER TABLE messages ADD COLUMN variant_payloads BYTEA;
        ALTER TABLE message_history ADD COLUMN variants TEXT;
        ALTER TABLE messages ADD COLUMN winner_message_id TEXT COLLATE "C";
        """

    /// ``SQLiteMigrations/variantWinnersAndLetters``.
    static let variantWinnersAndLetters = """
        ALTER TABLE messages ADD COLUMN winner_due_at BIGINT;
        CREATE INDEX messages_winner_due ON messages (winner_due_at)
            WHERE winner_due_at IS NOT NULL AND winner_message_id IS NULL;
        ALTER TABLE messages ADD COLUMN variant_letters TEXT COLLATE "C";
        """
}
