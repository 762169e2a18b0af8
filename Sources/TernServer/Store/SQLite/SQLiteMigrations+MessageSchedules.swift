extension SQLiteMigrations {
    /// When a scheduled message is to be sent (`send_at`, ms since 1970); null for one sent when it
    /// was made. Its fan-out waits until then.
    static let messageSchedules = """
        ALTER TABLE messages ADD COLUMN send_at INTEGER;
        """
}
