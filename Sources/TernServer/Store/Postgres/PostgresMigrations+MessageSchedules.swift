extension PostgresMigrations {
    /// ``SQLiteMigrations/messageSchedules``.
    static let messageSchedules = """
        ALTER TABLE messages ADD COLUMN send_at BIGINT;
        """
}
