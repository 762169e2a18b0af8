extension SQLiteMigrations {
    /// The profiles an engagement condition names, kept under the message whose fan-out reads them
    /// (``EngagementLists``): read once when the send begins, probed by key by each chunk, removed
    /// when the fan-out ends or the message is cancelled.
    static let audienceLists = """
        CREATE TABLE audience_lists (
            message_id INTEGER NOT NULL,
            list INTEGER NOT NULL,
            profile_id INTEGER NOT NULL,
            PRIMARY KEY (message_id, list, profile_id)
        ) WITHOUT ROWID;
        """
}
