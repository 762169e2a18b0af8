extension PostgresMigrations {
    /// SQLite's ``SQLiteMigrations/segmentCounts`` in PostgreSQL's dialect: `audience_counts` kept
    /// by one row trigger function (an upsert for the group a subscription joins, a decrement for
    /// the one it leaves; a group at 0 is removed), the tags' copy of their subscription's
    /// resource and push rules (a `BEFORE INSERT` trigger that reads the subscription `FOR SHARE`),
    /// and the index on recent sessions.
    static let segmentCounts = """
        CREATE TABLE audience_counts (
            resource_id BIGINT NOT NULL,
            group_key TEXT COLLATE "C" NOT NULL,
            session_count BIGINT,
            app_version_key TEXT COLLATE "C",
            language TEXT COLLATE "C",
            n BIGINT NOT NULL,
            PRIMARY KEY (resource_id, group_key)
        );
        INSERT INTO audience_counts (resource_id, group_key, session_count, app_version_key, language, n)
            SELECT resource_id, \(groupKey("")), session_count, app_version_key, language, COUNT(*)
            FROM subscriptions WHERE pushable = 1 GROUP BY resource_id, session_count, app_version_key, language;
        CREATE FUNCTION audience_counts_follow() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF TG_OP <> 'INSERT' THEN
                IF OLD.pushable = 1 THEN
                    UPDATE audience_counts SET n = n - 1
                        WHERE resource_id = OLD.resource_id AND group_key = \(groupKey("OLD"));
                    DELETE FROM audience_counts
                        WHERE resource_id = OLD.resource_id AND group_key = \(groupKey("OLD")) AND n = 0;
                END IF;
            END IF;
            IF TG_OP <> 'DELETE' THEN
                IF NEW.pushable = 1 THEN
                    INSERT INTO audience_counts (resource_id, group_key, session_count, app_version_key, language, n)
                        VALUES (NEW.resource_id, \(groupKey("NEW")), NEW.session_count, NEW.app_version_key,
                            NEW.language, 1)
                        ON CONFLICT (resource_id, group_key) DO UPDATE SET n = audience_counts.n + 1;
                END IF;
            END IF;
            RETURN NULL;
        END
        $$;
        CREATE TRIGGER audience_counts_insert_delete AFTER INSERT OR DELETE ON subscriptions
            FOR EACH ROW EXECUTE FUNCTION audience_counts_follow();
        CREATE TRIGGER audience_counts_update
            AFTER UPDATE OF resource_id, pushable, session_count, app_version_key, language ON subscriptions
            FOR EACH ROW WHEN ((OLD.pushable = 1 OR NEW.pushable = 1) AND (OLD.resource_id IS DISTINCT FROM NEW.resource_id
                OR OLD.pushable IS DISTINCT FROM NEW.pushable OR OLD.session_count IS DISTINCT FROM NEW.session_count
                OR OLD.app_version_key IS DISTINCT FROM NEW.app_version_key OR OLD.language IS DISTINCT FROM NEW.language))
            EXECUTE FUNCTION audience_counts_follow();
        ALTER TABLE subscription_tags ADD COLUMN resource_id BIGINT;
        ALTER TABLE subscription_tags ADD COLUMN pushable BIGINT NOT NULL DEFAULT 0;
        UPDATE subscription_tags t SET resource_id = s.resource_id, pushable = s.pushable
            FROM subscriptions s WHERE s.id = t.subscription_id;
        CREATE INDEX subscription_tags_counts ON subscription_tags (name, value, resource_id, pushable);
        CREATE FUNCTION subscription_tags_scope() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            -- FOR SHARE: a concurrent change of the subscription's push rules waits for this tag, or
            -- this tag for it, so the tag never keeps a value the change did not see.
            SELECT s.resource_id, s.pushable INTO NEW.resource_id, NEW.pushable
                FROM subscriptions s WHERE s.id = NEW.subscription_id FOR SHARE;
            NEW.pushable := COALESCE(NEW.pushable, 0);
            RETURN NEW;
        END
        $$;
        CREATE TRIGGER subscription_tags_scope BEFORE INSERT ON subscription_tags
            FOR EACH ROW EXECUTE FUNCTION subscription_tags_scope();
        CREATE FUNCTION subscription_tags_follow() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            UPDATE subscription_tags SET resource_id = NEW.resource_id, pushable = NEW.pushable
                WHERE subscription_id = NEW.id;
            RETURN NULL;
        END
        $$;
        CREATE TRIGGER subscription_tags_follow AFTER UPDATE OF resource_id, pushable ON subscriptions
            FOR EACH ROW WHEN (OLD.resource_id IS DISTINCT FROM NEW.resource_id OR OLD.pushable IS DISTINCT FROM NEW.pushable)
            EXECUTE FUNCTION subscription_tags_follow();
        CREATE INDEX subscriptions_audience_recent ON subscriptions (resource_id, pushable, last_session, language,
            session_count, app_version_key, first_session, foreground_time);
        """

    /// The group key of a row's (`NEW`, `OLD` or none) built-in columns, as SQLite writes it.
    static func groupKey(_ row: String) -> String {
        let prefix = row.isEmpty ? "" : row + "."
        return "COALESCE(\(prefix)session_count::text, '-') || '|' || COALESCE(\(prefix)app_version_key, '-') || '|' "
            + "|| COALESCE('=' || \(prefix)language, '-')"
    }
}
