extension PostgresMigrations {
    /// SQLite's `SQLiteMigrations.segmentRows` in PostgreSQL's dialect: the tag rows' copy of
    /// their subscription's built-in field columns (filled by the `BEFORE INSERT` trigger that reads
    /// the subscription `FOR SHARE`, and followed by the trigger on the subscription's changes), the
    /// tags' index with them, and the keyset index of a resource's pushable subscriptions by id (in
    /// place of `subscriptions_audience_by_id`).
    static let segmentRows = """
        ALTER TABLE subscription_tags ADD COLUMN session_count BIGINT, ADD COLUMN app_version_key TEXT COLLATE "C",
            ADD COLUMN language TEXT COLLATE "C", ADD COLUMN last_session BIGINT, ADD COLUMN first_session BIGINT,
            ADD COLUMN foreground_time BIGINT;
        UPDATE subscription_tags t SET app_version_key = s.app_version_key, language = s.language,
            first_session = s.first_session, last_session = s.last_session, session_count = s.session_count,
            foreground_time = s.foreground_time
            FROM subscriptions s WHERE s.id = t.subscription_id;
        DROP INDEX subscription_tags_counts;
        CREATE INDEX subscription_tags_counts ON subscription_tags (name, value, resource_id, pushable, session_count,
            app_version_key, last_session, language, first_session, foreground_time);
        CREATE OR REPLACE FUNCTION subscription_tags_scope() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            -- FOR SHARE: a concurrent change of the subscription (its push rules, a report of its
            -- built-in fields) waits for this tag, or this tag for it, so the tag never keeps a
            -- value the change did not see.
            SELECT s.resource_id, s.pushable, s.app_version_key, s.language, s.first_session, s.last_session,
                    s.session_count, s.foreground_time
                INTO NEW.resource_id, NEW.pushable, NEW.app_version_key, NEW.language, NEW.first_session,
                    NEW.last_session, NEW.session_count, NEW.foreground_time
                FROM subscriptions s WHERE s.id = NEW.subscription_id FOR SHARE;
            NEW.pushable := COALESCE(NEW.pushable, 0);
            RETURN NEW;
        END
        $$;
        CREATE OR REPLACE FUNCTION subscription_tags_follow() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            UPDATE subscription_tags SET resource_id = NEW.resource_id, pushable = NEW.pushable,
                app_version_key = NEW.app_version_key, language = NEW.language, first_session = NEW.first_session,
                last_session = NEW.last_session, session_count = NEW.session_count, foreground_time = NEW.foreground_time
                WHERE subscription_id = NEW.id;
            RETURN NULL;
        END
        $$;
        DROP TRIGGER subscription_tags_follow ON subscriptions;
        CREATE TRIGGER subscription_tags_follow AFTER UPDATE OF resource_id, pushable, app_version_key, language, first_session,
            last_session, session_count, foreground_time ON subscriptions
            FOR EACH ROW WHEN (OLD.resource_id IS DISTINCT FROM NEW.resource_id OR OLD.pushable IS DISTINCT FROM NEW.pushable
                OR OLD.app_version_key IS DISTINCT FROM NEW.app_version_key OR OLD.language IS DISTINCT FROM NEW.language
                OR OLD.first_session IS DISTINCT FROM NEW.first_session OR OLD.last_session IS DISTINCT FROM NEW.last_session
                OR OLD.session_count IS DISTINCT FROM NEW.session_count
                OR OLD.foreground_time IS DISTINCT FROM NEW.foreground_time)
            EXECUTE FUNCTION subscription_tags_follow();
        CREATE INDEX subscriptions_audience_keyset ON subscriptions (resource_id, pushable, id, session_count,
            app_version_key, last_session, first_session, foreground_time, language);
        DROP INDEX subscriptions_audience_by_id;
        """
}
