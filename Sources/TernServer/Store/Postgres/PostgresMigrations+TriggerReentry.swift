extension PostgresMigrations {
    /// ``SQLiteMigrations/triggerReentry``.
    static let triggerReentry = """
        ALTER TABLE messages ADD COLUMN trigger_reentry BIGINT;
        ALTER TABLE messages ADD COLUMN trigger_round_of TEXT COLLATE "C";
        ALTER TABLE messages ADD COLUMN trigger_round INTEGER;
        CREATE UNIQUE INDEX messages_trigger_rounds ON messages (trigger_round_of, trigger_round)
            WHERE trigger_round_of IS NOT NULL;
        ALTER TABLE trigger_runs ALTER COLUMN due_at DROP NOT NULL;
        ALTER TABLE trigger_runs ADD COLUMN round INTEGER NOT NULL DEFAULT 1;
        ALTER TABLE trigger_runs ADD COLUMN went_at BIGINT;
        DROP INDEX trigger_runs_due;
        CREATE INDEX trigger_runs_due ON trigger_runs (due_at) WHERE due_at IS NOT NULL;
        """
}
