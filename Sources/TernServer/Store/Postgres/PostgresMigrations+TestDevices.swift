extension PostgresMigrations {
    /// ``SQLiteMigrations/apnsEnvironmentAndTestDevices`` in PostgreSQL's dialect.
    static let apnsEnvironmentAndTestDevices = """
        ALTER TABLE subscriptions ADD COLUMN apns_environment TEXT COLLATE "C";
        ALTER TABLE subscriptions ADD COLUMN is_test BOOLEAN NOT NULL DEFAULT false;
        CREATE INDEX subscriptions_test ON subscriptions (resource_id) WHERE is_test;
        CREATE INDEX profiles_test ON profiles (db_id) WHERE is_test;
        """
}
