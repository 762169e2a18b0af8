extension SQLiteMigrations {
    /// Issue 18: `subscriptions_address` (resource, channel, provider, token) goes. Its one query, a
    /// token's subscriptions on a resource, reads `subscriptions_token` (provider, token) and keeps
    /// the rows of that resource and channel: a token has one row, or a few. Every new subscription
    /// wrote both indexes, and with real, random device tokens each of them dirtied a leaf of its
    /// own that the commit then wrote to the log.
    static let writeIndexes = """
        DROP INDEX subscriptions_address;
        """
}
