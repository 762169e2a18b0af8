extension PostgresMigrations {
    /// ``SQLiteMigrations/messageList``.
    static let messageList = """
        CREATE INDEX messages_project ON messages (project_id, id);
        CREATE INDEX messages_standing ON messages (id) WHERE cancelled_at IS NULL
            AND (trigger_event IS NOT NULL OR trigger_round_of IS NOT NULL OR repeat_next_at IS NOT NULL);
        CREATE INDEX messages_triggered ON messages (id) WHERE (trigger_event IS NOT NULL OR trigger_round_of IS NOT NULL);
        CREATE INDEX messages_repeating ON messages (id)
            WHERE (repeat_every IS NOT NULL OR repeat_weekdays IS NOT NULL OR recurring_of IS NOT NULL);
        CREATE INDEX messages_winners ON messages (winner_message_id) WHERE winner_message_id IS NOT NULL;
        """
}
