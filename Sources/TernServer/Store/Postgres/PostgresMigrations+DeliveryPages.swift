extension PostgresMigrations {
    /// ``SQLiteMigrations/deliveryPages``: a message's deliveries page reads its rows in id order.
    /// PostgreSQL does not append the row's id to an index entry, so it is named.
    static let deliveryPages = """
        CREATE INDEX deliveries_message_page ON deliveries (message_id, id);
        """
}
