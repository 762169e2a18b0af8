extension SQLiteMigrations {
    /// Recurring messages: the time between copies (ms), the last time, the next (null once none
    /// is left, so `messages_recurring` holds the standing ones only); a copy names its message.
    static let messageRecurrence = """
        ALTER TABLE messages ADD COLUMN repeat_every INTEGER;
        ALTER TABLE messages ADD COLUMN repeat_until INTEGER;
        ALTER TABLE messages ADD COLUMN repeat_next_at INTEGER;
        ALTER TABLE messages ADD COLUMN recurring_of TEXT;
        CREATE INDEX messages_recurring ON messages (repeat_next_at) WHERE repeat_next_at IS NOT NULL;
        """
}

extension SQLiteMigrations {
    /// A recurring message on days of the week (`repeat.weekdays`): its days, `mon,thu`, where
    /// `repeat_every` is null.
    static let recurrenceWeekdays = """
        ALTER TABLE messages ADD COLUMN repeat_weekdays TEXT;
        """
}

extension SQLiteMigrations {
    /// A message replaced before it went (`PUT …/messages/{id}`): when, null until then.
    static let messageEdits = """
        ALTER TABLE messages ADD COLUMN edited_at INTEGER;
        """
}
