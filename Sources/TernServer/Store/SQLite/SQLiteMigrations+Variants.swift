extension SQLiteMigrations {
    /// An A/B-tested message's versions, each with its share and payload (JSON, ``VariantPayload``),
    /// and, once its rows per device are removed, each version's figures (``VariantFigures``). A
    /// delivery's version comes from its subscription (``MessageVariants``), so deliveries keep no
    /// column of their own.
    static let messageVariants = """
        ALTER TABLE messages ADD COLUMN variant_payloads BLOB;
        ALTER TABLE message_history ADD COLUMN variants TEXT;
        """
}
