extension PostgresMigrations {
    /// ``SQLiteMigrations/messageRecurrence``.
    static let messageRecurrence = """
        ALTER TABLE messages ADD COLUMN repeat_every BIGINT;
        ALTER TABLE messages ADD COLUMN repeat_until BIGINT;
        ALTER TABLE messages ADD COLUMN repeat_next_at BIGINT;
        ALTER TABLE messages ADD COLUMN recurring_of TEXT COLLATE "C";
        CREATE INDEX messages_recurring ON messages (repeat_next_at) WHERE repeat_next_at IS NOT NULL;
        """
}

extension PostgresMigrations {
    /// ``SQLiteMigrations/recurrenceWeekdays``.
    static let recurrenceWeekdays = """
        ALTER TABLE messages ADD COLUMN repeat_weekdays TEXT COLLATE "C";
        """
}

extension PostgresMigrations {
    /// ``SQLiteMigrations/messageEdits``.
    static let messageEdits = """
        ALTER TABLE messages ADD COLUMN edited_at BIGINT;
        """
}
