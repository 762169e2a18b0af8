extension SQLiteMigrations {
    /// When an operator cancelled the message (`POST …/messages/{message_id}/cancel`, ms since 1970):
    /// its fan-out stops and its deliveries not yet sent are closed unsent.
    static let messageCancels = """
        ALTER TABLE messages ADD COLUMN cancelled_at INTEGER;
        """
}
