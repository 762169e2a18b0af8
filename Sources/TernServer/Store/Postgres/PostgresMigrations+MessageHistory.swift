extension PostgresMigrations {
    /// ``SQLiteMigrations/messageHistory``.
    static let messageHistory = """
        CREATE TABLE message_history (
            message_id BIGINT PRIMARY KEY,
            failed_by_reason TEXT COLLATE "C" NOT NULL,
            delivered BIGINT,
            opened BIGINT,
            removed_at BIGINT NOT NULL,
            finished_at BIGINT
        );
        """
}
