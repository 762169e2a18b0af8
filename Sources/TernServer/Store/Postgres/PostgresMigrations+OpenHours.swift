extension PostgresMigrations {
    /// ``SQLiteMigrations/openHours``.
    static let openHours = """
        CREATE TABLE open_hours (
            profile_id BIGINT PRIMARY KEY,
            counts TEXT COLLATE "C" NOT NULL,
            usual_hour INTEGER
        );
        CREATE TABLE open_hours_progress (
            id INTEGER PRIMARY KEY,
            counted BIGINT NOT NULL,
            seen BIGINT NOT NULL
        );
        INSERT INTO open_hours_progress (id, counted, seen) VALUES (1, 0, 0);
        """
}
