extension SQLiteMigrations {
    /// In-app campaigns (issue 12): the campaigns, their counters, their static resources, and the
    /// projects' caps.
    static let inAppTables = """
        CREATE TABLE inapp_campaigns (
            id INTEGER PRIMARY KEY,
            project_id INTEGER NOT NULL REFERENCES projects (id),
            resource_id INTEGER NOT NULL REFERENCES resources (id),
            name TEXT NOT NULL,
            status TEXT NOT NULL,
            priority INTEGER NOT NULL,
            starts_at INTEGER,
            ends_at INTEGER,
            definition TEXT NOT NULL,
            created_at INTEGER NOT NULL,
            updated_at INTEGER NOT NULL
        );
        CREATE INDEX inapp_campaigns_live ON inapp_campaigns (project_id, resource_id, status);
        CREATE TABLE inapp_stats (
            campaign_id INTEGER NOT NULL REFERENCES inapp_campaigns (id),
            kind TEXT NOT NULL,
            item TEXT NOT NULL,
            n INTEGER NOT NULL,
            PRIMARY KEY (campaign_id, kind, item)
        );
        CREATE TABLE inapp_static (
            campaign_id INTEGER NOT NULL REFERENCES inapp_campaigns (id),
            name TEXT NOT NULL,
            content_type TEXT NOT NULL,
            bytes BLOB NOT NULL,
            updated_at INTEGER NOT NULL,
            PRIMARY KEY (campaign_id, name)
        );
        CREATE TABLE inapp_project_caps (
            project_id INTEGER PRIMARY KEY REFERENCES projects (id),
            caps TEXT NOT NULL,
            updated_at INTEGER NOT NULL
        );
        """
}
