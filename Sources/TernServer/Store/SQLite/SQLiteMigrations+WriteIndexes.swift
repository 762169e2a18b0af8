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

extension SQLiteMigrations {
    /// Issue 18: `subscriptions_push_by_resource` (resource, id, for push subscriptions) goes. A
    /// resource's fan-out reads its pushable subscriptions by id through
    /// `subscriptions_audience_keyset` instead, as a segment's does, so every subscription's insert
    /// and every change of its token or status wrote one index more than the reads need.
    static let resourceFanOut = """
        DROP INDEX subscriptions_push_by_resource;
        """
}
