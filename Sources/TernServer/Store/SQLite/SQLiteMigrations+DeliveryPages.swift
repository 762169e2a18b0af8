extension SQLiteMigrations {
    /// Issue 18: a message's deliveries page (`GET /messages/{id}/deliveries`, by id after a cursor)
    /// had no index in its order. It read every delivery of the message through the unique index and
    /// sorted them for each page, or (once the table was analyzed) walked the whole table by id from
    /// the cursor, past every later message's deliveries, until the page was full. An index on the
    /// message alone holds its rows in id order (SQLite appends the rowid to every index entry), so a
    /// page reads its own rows and no others. A fan-out appends to the message's end of the index:
    /// 300,000 deliveries inserted took as long with it as without it, within the noise.
    static let deliveryPages = """
        CREATE INDEX deliveries_message_page ON deliveries (message_id);
        """
}
