extension SQLiteMigrations {
    /// Weekly messages with a local time go on each device's own listed day
    /// (``MessageRecurrence``): the copy for day D is made at D−1 10:00 UTC. A standing message
    /// stored before had its next copy on D (UTC) at its first time's time of day; it moves to D's
    /// copy time of the new rule (in the past, the next pass makes it at once), so its day stays D.
    /// The request is JSON with sorted keys and no spaces, so its local time shows as the key
    /// followed by a colon (text values escape their quotes).
    static let localWeekdays = """
        UPDATE messages SET repeat_next_at = repeat_next_at - (repeat_next_at % 86400000) - 50400000
        WHERE repeat_weekdays IS NOT NULL AND repeat_next_at IS NOT NULL
            AND instr(content, '"local_time_of_day":') > 0;
        """
}
