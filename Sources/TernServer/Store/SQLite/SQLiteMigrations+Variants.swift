extension SQLiteMigrations {
    /// An A/B-tested message's versions, each with its share and payload (JSON, ``VariantPayload``),
    /// and, once its rows per device are removed, each version's figures (``VariantFigures``). A
    /// delivery's version comes from its subscription (``MessageVariants``), so deliveries keep no
    /// column of their own. A test of part of the audience notes the message that sent its winner.
    static let messageVariants = """
        ALTER TABLE messages ADD COLUMN variant_payloads BLOB;
        ALTER TABLE message_history ADD COLUMN variants TEXT;
        ALTER TABLE messages ADD COLUMN winner_message_id TEXT;
        """

    /// When the server picks an A/B test's winner itself (`winner_after_minutes`); the index holds
    /// only the tests waiting for it. And each test's version of each of the 100 buckets, a letter
    /// a bucket (``StoredMessage/variantLetters``), so that a device's report is counted only under
    /// the version its delivery was sent.
    static let variantWinnersAndLetters = """
        ALTER TABLE messages ADD COLUMN winner_due_at INTEGER;
        CREATE INDEX messages_winner_due ON messages (winner_due_at)
            WHERE winner_due_at IS NOT NULL AND winner_message_id IS NULL;
        ALTER TABLE messages ADD COLUMN variant_letters TEXT;
        """
}
