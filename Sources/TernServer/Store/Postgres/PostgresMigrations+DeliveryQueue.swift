extension PostgresMigrations {
    /// ``SQLiteMigrations/deliveryQueue``: a delivery's row is written once; its state is in
    /// `delivery_queue` while it is queued or leased and in `delivery_outcomes` after. On
    /// PostgreSQL an update of the row wrote a new version of it and of its index entries, and
    /// vacuum later removed the old ones: the costliest part of a send for the database. The old
    /// columns are dropped in place (PostgreSQL does not rewrite the table for it), and so is the
    /// foreign key to the message (the SQLite migration says why).
    static let deliveryQueue = """
        CREATE TABLE delivery_queue (
            delivery_id BIGINT PRIMARY KEY,
            message_id BIGINT NOT NULL,
            status TEXT COLLATE "C" NOT NULL,
            attempts BIGINT NOT NULL,
            due_at BIGINT NOT NULL,
            updated_at BIGINT NOT NULL
        );
        CREATE INDEX delivery_queue_due ON delivery_queue (message_id, due_at);
        CREATE TABLE delivery_outcomes (
            delivery_id BIGINT NOT NULL,
            attempt BIGINT NOT NULL,
            message_id BIGINT NOT NULL,
            status TEXT COLLATE "C" NOT NULL,
            reason TEXT COLLATE "C",
            provider_message_id TEXT COLLATE "C",
            at BIGINT NOT NULL,
            PRIMARY KEY (delivery_id, attempt)
        );
        CREATE INDEX delivery_outcomes_failed ON delivery_outcomes (message_id, reason) WHERE status = 'failed';
        INSERT INTO delivery_queue (delivery_id, message_id, status, attempts, due_at, updated_at)
            SELECT id, message_id, status, attempts, COALESCE(due_at, updated_at), updated_at FROM deliveries
            WHERE status IN ('queued', 'sending');
        INSERT INTO delivery_outcomes (delivery_id, attempt, message_id, status, reason, provider_message_id, at)
            SELECT id, attempts, message_id, status, reason, provider_message_id, updated_at FROM deliveries
            WHERE status NOT IN ('queued', 'sending');
        INSERT INTO delivery_outcomes (delivery_id, attempt, message_id, status, reason, provider_message_id, at)
            SELECT id, attempts - CASE status WHEN 'sending' THEN 1 ELSE 0 END, message_id, 'queued', reason,
                provider_message_id, updated_at
            FROM deliveries
            WHERE status IN ('queued', 'sending') AND (reason IS NOT NULL OR provider_message_id IS NOT NULL)
                AND attempts - CASE status WHEN 'sending' THEN 1 ELSE 0 END > 0;
        DROP INDEX deliveries_message_due;
        DROP INDEX deliveries_failed;
        ALTER TABLE deliveries DROP CONSTRAINT deliveries_message_id_fkey;
        ALTER TABLE deliveries DROP COLUMN status, DROP COLUMN attempts, DROP COLUMN due_at, DROP COLUMN reason,
            DROP COLUMN provider_message_id, DROP COLUMN updated_at;
        """
}
