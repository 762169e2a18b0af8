extension PostgresMigrations {
    /// PostgreSQL only (issue 18): a device is told apart by the subscriptions that hold its token,
    /// looked up before a chunk's deliveries are written, not by a unique index on each delivery's
    /// provider and token. That index put every delivery of a send on a random leaf of a wide
    /// index (a token is 64 to 160 characters): in a harness, 13.5–16.5 µs a row with it against
    /// 6–9 without, and the deliveries' insert was most of the database's time in a send.
    /// `deliveries_subscription` (message, subscription) answers the lookup, and a fan-out appends
    /// to it in subscription order.
    ///
    /// SQLite keeps the unique index: there the lookups cost more than the index (tern's CPU per
    /// delivery in a send of 100,000 was about a tenth higher with them), and it cannot drop a
    /// table's constraint without writing the table again.
    static let deliveryDevices = """
        ALTER TABLE deliveries DROP CONSTRAINT deliveries_message_id_provider_token_key;
        CREATE INDEX deliveries_subscription ON deliveries (message_id, subscription_id);
        """
}
