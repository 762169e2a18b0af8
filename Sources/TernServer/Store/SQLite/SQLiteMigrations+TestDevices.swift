extension SQLiteMigrations {
    /// Issue 14: each push subscription's APNs environment (NULL: the SDK never said) and its test
    /// device flag, with the partial indexes a test send reads.
    static let apnsEnvironmentAndTestDevices = """
        ALTER TABLE subscriptions ADD COLUMN apns_environment TEXT;
        ALTER TABLE subscriptions ADD COLUMN is_test INTEGER NOT NULL DEFAULT 0;
        CREATE INDEX subscriptions_test ON subscriptions (resource_id) WHERE is_test;
        CREATE INDEX profiles_test ON profiles (db_id) WHERE is_test;
        """
}
