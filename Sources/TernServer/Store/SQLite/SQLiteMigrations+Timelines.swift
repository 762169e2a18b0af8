extension SQLiteMigrations {
    /// A message's timeline kept once its rows per device go (`--delivery-retention-days`): its
    /// figures per UTC hour as a JSON array of `[hour start (ms), sent, failed, delivered, opened,
    /// converted]` (``MessageHistory/timeline``), the outcomes' taken when the removal begins, the
    /// reports' added when they are counted. NULL in history kept before timelines were.
    static let messageTimelines = """
        ALTER TABLE message_history ADD COLUMN timeline TEXT;
        """
}
