extension PostgresMigrations {
    /// ``SQLiteMigrations/messageTimelines``.
    static let messageTimelines = """
        ALTER TABLE message_history ADD COLUMN timeline TEXT COLLATE "C";
        """
}
