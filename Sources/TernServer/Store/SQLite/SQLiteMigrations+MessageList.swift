extension SQLiteMigrations {
    /// The message list's filters (`GET …/messages?state=&kind=`), each page read newest first by
    /// id: a project's messages (`messages_project`, for a project key among many projects), the
    /// standing ones (`messages_standing`, a few dozen among a year of sends), the triggered and
    /// recurring ones and their rounds and copies (`messages_triggered`, `messages_repeating`), each
    /// condition written as the list's query writes it, so the planner takes it; and an A/B test's
    /// winner send found by the test that names it (`messages_winners`).
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
