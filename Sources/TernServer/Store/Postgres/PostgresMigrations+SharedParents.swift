extension PostgresMigrations {
    /// PostgreSQL only: the foreign keys from every new profile to its profile database, and from
    /// every new subscription and push event to its resource, go. PostgreSQL checks such a key by
    /// locking the parent row (`FOR KEY SHARE`): one row, a project's database or an app's resource,
    /// that every concurrent subscribe and report of it locks, so each lock beyond the first makes a
    /// new multixact of all its holders. Nothing deletes a resource or a profile database (no route,
    /// no command), and every write names one it looked up first (the caller's key). SQLite checks
    /// its keys by a lookup without a lock and keeps them.
    static let sharedParents = """
        ALTER TABLE profiles DROP CONSTRAINT profiles_db_id_fkey;
        ALTER TABLE subscriptions DROP CONSTRAINT subscriptions_resource_id_fkey;
        ALTER TABLE push_events DROP CONSTRAINT push_events_resource_id_fkey;
        """
}
