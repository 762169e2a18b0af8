extension PostgresMigrations {
    /// ``SQLiteMigrations/sentRuns``: a run of a chunk's first attempts answered `sent`, in a row.
    static let sentRuns = """
        CREATE TABLE delivery_sent_runs (
            message_id BIGINT NOT NULL,
            last_id BIGINT NOT NULL,
            first_id BIGINT NOT NULL,
            at BIGINT NOT NULL,
            PRIMARY KEY (message_id, last_id)
        );
        """
}
