extension PostgresMigrations {
    /// ``SQLiteMigrations/writeIndexes``: the address lookup reads `subscriptions_token`.
    static let writeIndexes = """
        DROP INDEX subscriptions_address;
        """
}

extension PostgresMigrations {
    /// ``SQLiteMigrations/resourceFanOut``: a resource's fan-out reads `subscriptions_audience_keyset`.
    static let resourceFanOut = """
        DROP INDEX subscriptions_push_by_resource;
        """
}
