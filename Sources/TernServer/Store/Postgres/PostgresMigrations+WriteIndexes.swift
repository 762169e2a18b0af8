extension PostgresMigrations {
    /// ``SQLiteMigrations/writeIndexes``: the address lookup reads `subscriptions_token`.
    static let writeIndexes = """
        DROP INDEX subscriptions_address;
        """
}
