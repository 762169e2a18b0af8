extension PostgresMigrations {
    /// PostgreSQL only (issue 18): a delivery's key is its message and its id, the order the
    /// deliveries page reads, so the table has two indexes where it had three. The primary key on
    /// the id alone and `deliveries_message_page` (message, id) held the same entries in two orders,
    /// and a send wrote both for every device: in a harness of 64-row inserts the row cost 6.0–6.3
    /// µs with the one index against 6.7–7.0 with the two. Every statement that reads a delivery
    /// names its message (a report names it by the message's public id, a claim by the message it
    /// claims for), so nothing reads by the id alone.
    ///
    /// SQLite's deliveries keep their rowid, which costs no index of its own.
    static let deliveryKeys = """
        ALTER TABLE deliveries DROP CONSTRAINT deliveries_pkey;
        DROP INDEX deliveries_message_page;
        ALTER TABLE deliveries ADD CONSTRAINT deliveries_pkey PRIMARY KEY (message_id, id);
        """
}
