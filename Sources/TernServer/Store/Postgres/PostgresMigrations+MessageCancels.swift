extension PostgresMigrations {
    /// ``SQLiteMigrations/messageCancels``.
    static let messageCancels = """
        ALTER TABLE messages ADD COLUMN cancelled_at BIGINT;
        """
}
