extension SQLiteMigrations {
    /// The people of each message with a control group (`control_percent`), held out or sent to,
    /// written by its fan-out with its deliveries (``ControlGroup``). Kept with the message when its
    /// rows per device go (`--delivery-retention-days`), so its stats keep the comparison; a
    /// person's rows go with the person (erasure, by `control_group_people_profile`, which only
    /// the sends with a control group write to).
    static let controlGroups = """
        CREATE TABLE control_group_people (
            message_id INTEGER NOT NULL REFERENCES messages (id),
            profile_id INTEGER NOT NULL REFERENCES profiles (id) ON DELETE CASCADE,
            held_out INTEGER NOT NULL,
            PRIMARY KEY (message_id, profile_id)
        ) WITHOUT ROWID;
        CREATE INDEX control_group_people_profile ON control_group_people (profile_id);
        """
}
