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
}
