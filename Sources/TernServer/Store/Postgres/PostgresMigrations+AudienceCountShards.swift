extension PostgresMigrations {
    /// PostgreSQL only: `audience_counts` keeps a row per group and connection (`shard`, the
    /// connection's `pg_backend_pid()`), as `message_counts` does. With one row a group, every
    /// subscription of one app version and language joined the same row, so the subscribes of all
    /// the pool's connections queued behind one another's counts until each batch committed (and
    /// batches that crossed two groups in other orders deadlocked). The counts are read as sums
    /// already; a row may go below zero where a subscription left through another connection than
    /// it joined, and only the sums mean anything.
    static let audienceCountShards = """
        ALTER TABLE audience_counts ADD COLUMN shard BIGINT NOT NULL DEFAULT 0;
        ALTER TABLE audience_counts DROP CONSTRAINT audience_counts_pkey;
        ALTER TABLE audience_counts ADD PRIMARY KEY (resource_id, group_key, shard);
        CREATE OR REPLACE FUNCTION audience_counts_follow() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF TG_OP <> 'INSERT' THEN
                IF OLD.pushable = 1 THEN
                    INSERT INTO audience_counts (resource_id, group_key, shard, session_count, app_version_key,
                            language, n)
                        VALUES (OLD.resource_id, \(groupKey("OLD")), pg_backend_pid(), OLD.session_count,
                            OLD.app_version_key, OLD.language, -1)
                        ON CONFLICT (resource_id, group_key, shard) DO UPDATE SET n = audience_counts.n - 1;
                    DELETE FROM audience_counts
                        WHERE resource_id = OLD.resource_id AND group_key = \(groupKey("OLD"))
                            AND shard = pg_backend_pid() AND n = 0;
                END IF;
            END IF;
            IF TG_OP <> 'DELETE' THEN
                IF NEW.pushable = 1 THEN
                    INSERT INTO audience_counts (resource_id, group_key, shard, session_count, app_version_key,
                            language, n)
                        VALUES (NEW.resource_id, \(groupKey("NEW")), pg_backend_pid(), NEW.session_count,
                            NEW.app_version_key, NEW.language, 1)
                        ON CONFLICT (resource_id, group_key, shard) DO UPDATE SET n = audience_counts.n + 1;
                END IF;
            END IF;
            RETURN NULL;
        END
        $$;
        """
}
