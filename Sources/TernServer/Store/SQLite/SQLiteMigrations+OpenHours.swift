extension SQLiteMigrations {
    /// Each person's opens by hour of day (UTC), and the hour with the most, for messages sent at
    /// each person's usual open time (``UsualOpenTime``); the counter's progress through the
    /// devices' reports, one row.
    static let openHours = """
        CREATE TABLE open_hours (
            profile_id INTEGER PRIMARY KEY,
            counts TEXT NOT NULL,
            usual_hour INTEGER
        );
        CREATE TABLE open_hours_progress (
            id INTEGER PRIMARY KEY,
            counted INTEGER NOT NULL,
            seen INTEGER NOT NULL
        );
        INSERT INTO open_hours_progress (id, counted, seen) VALUES (1, 0, 0);
        """
}
