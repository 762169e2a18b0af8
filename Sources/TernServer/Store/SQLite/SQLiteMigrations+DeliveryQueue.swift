extension SQLiteMigrations {
    /// Issue 18: a delivery's row is written once. Its state was in the row (status, attempts, when
    /// due, the last outcome's reason and provider id), so every claim and outcome rewrote the row
    /// and its index entries. The state now lives in two tables beside it:
    ///
    /// - `delivery_queue`: one entry per delivery queued or leased (`sending`), inserted with the
    ///   delivery, moved by claims and retries, deleted by its final outcome. Claims read it by
    ///   message and due time; it holds only what is in flight, so its pages stay few.
    /// - `delivery_leases`: a fan-out that hands a chunk of deliveries straight to its senders
    ///   leases the chunk (its message, its first and last ids, until when) instead of queueing
    ///   each: a claim that finds the lease lapsed queues the chunk's deliveries still without an
    ///   outcome. Most deliveries then never touch the queue.
    /// - `delivery_outcomes`: every attempt's outcome, appended (a retry's too, with its reason).
    ///   A delivery out of the queue has its state in its last outcome (a leased one without any is
    ///   on its first attempt); failed deliveries' reasons are counted from these.
    ///
    /// Neither names its delivery with a foreign key (a check per row on the hottest writes); only
    /// the store's delivery queries write them, always with the delivery in the same transaction.
    /// The delivery no longer names its message with one either: messages are never deleted, and
    /// the fan-out writes the deliveries of the message it holds; on PostgreSQL the check was 4 %
    /// of the database's time in a send (a lookup and a lock of the message's row per delivery).
    /// Existing rows move: those queued or sending into the queue (with a retry's reason as an
    /// outcome of the attempt before), the others' state as their last outcome. The rebuilt table
    /// keeps its ids, its dedupe key and its page index, and the last update's time as the row's.
    static let deliveryQueue = """
        CREATE TABLE delivery_queue (
            delivery_id INTEGER PRIMARY KEY,
            message_id INTEGER NOT NULL,
            status TEXT NOT NULL,
            attempts INTEGER NOT NULL,
            due_at INTEGER NOT NULL,
            updated_at INTEGER NOT NULL
        );
        CREATE INDEX delivery_queue_due ON delivery_queue (message_id, due_at);
        CREATE TABLE delivery_outcomes (
            delivery_id INTEGER NOT NULL,
            attempt INTEGER NOT NULL,
            message_id INTEGER NOT NULL,
            status TEXT NOT NULL,
            reason TEXT,
            provider_message_id TEXT,
            at INTEGER NOT NULL,
            PRIMARY KEY (delivery_id, attempt)
        ) WITHOUT ROWID;
        CREATE INDEX delivery_outcomes_failed ON delivery_outcomes (message_id, reason) WHERE status = 'failed';
        CREATE TABLE delivery_leases (
            id INTEGER PRIMARY KEY,
            message_id INTEGER NOT NULL,
            first_id INTEGER NOT NULL,
            last_id INTEGER NOT NULL,
            lease_until INTEGER NOT NULL,
            created_at INTEGER NOT NULL
        );
        CREATE INDEX delivery_leases_message ON delivery_leases (message_id, last_id);
        INSERT INTO delivery_queue (delivery_id, message_id, status, attempts, due_at, updated_at)
            SELECT id, message_id, status, attempts, COALESCE(due_at, updated_at), updated_at FROM deliveries
            WHERE status IN ('queued', 'sending');
        INSERT INTO delivery_outcomes (delivery_id, attempt, message_id, status, reason, provider_message_id, at)
            SELECT id, attempts, message_id, status, reason, provider_message_id, updated_at FROM deliveries
            WHERE status NOT IN ('queued', 'sending');
        INSERT INTO delivery_outcomes (delivery_id, attempt, message_id, status, reason, provider_message_id, at)
            SELECT id, attempts - (status = 'sending'), message_id, 'queued', reason, provider_message_id, updated_at
            FROM deliveries
            WHERE status IN ('queued', 'sending') AND (reason IS NOT NULL OR provider_message_id IS NOT NULL)
                AND attempts - (status = 'sending') > 0;
        CREATE TABLE deliveries_written (
            id INTEGER PRIMARY KEY,
            message_id INTEGER NOT NULL,
            subscription_id INTEGER NOT NULL,
            provider TEXT NOT NULL,
            token TEXT NOT NULL,
            created_at INTEGER NOT NULL,
            UNIQUE (message_id, provider, token)
        );
        INSERT INTO deliveries_written (id, message_id, subscription_id, provider, token, created_at)
            SELECT id, message_id, subscription_id, provider, token, updated_at FROM deliveries;
        DROP TABLE deliveries;
        ALTER TABLE deliveries_written RENAME TO deliveries;
        CREATE INDEX deliveries_message_page ON deliveries (message_id);
        """
}
