extension PostgresMigrations {
    /// ``SQLiteMigrations/localWeekdays``.
    static let localWeekdays = """
        UPDATE messages SET repeat_next_at = repeat_next_at - (repeat_next_at % 86400000) - 50400000
        WHERE repeat_weekdays IS NOT NULL AND repeat_next_at IS NOT NULL
            AND strpos(content, '"local_time_of_day":') > 0;
        """
}
