extension SQLiteMigrations {
    /// Segment previews and fan-outs that read one index range (issue 14): each tag row carries its
    /// subscription's built-in field columns beside its resource and push rules (the triggers that
    /// copy those now copy these too, when the tag is written and when the subscription changes),
    /// all in the tags' `subscription_tags_counts` index, so a tag condition beside conditions on
    /// built-in fields is counted and sampled from the tag's own rows; and
    /// `subscriptions_audience_keyset` holds a resource's pushable subscriptions in id order with
    /// their built-in fields, so a segment's fan-out walks its next chunk from the message's cursor
    /// instead of reading and sorting the segment's whole slice again for each chunk (it replaces
    /// `subscriptions_audience_by_id`, which led with the id and so walked every resource's rows).
    static let segmentRows = """
        ALTER TABLE subscription_tags ADD COLUMN session_count INTEGER;
        ALTER TABLE subscription_tags ADD COLUMN app_version_key TEXT;
        ALTER TABLE subscription_tags ADD COLUMN language TEXT;
        ALTER TABLE subscription_tags ADD COLUMN last_session INTEGER;
        ALTER TABLE subscription_tags ADD COLUMN first_session INTEGER;
        ALTER TABLE subscription_tags ADD COLUMN foreground_time INTEGER;
        UPDATE subscription_tags SET session_count = s.session_count, app_version_key = s.app_version_key,
            language = s.language, last_session = s.last_session, first_session = s.first_session,
            foreground_time = s.foreground_time
            FROM subscriptions s WHERE s.id = subscription_tags.subscription_id;
        DROP INDEX subscription_tags_counts;
        CREATE INDEX subscription_tags_counts ON subscription_tags (name, value, resource_id, pushable, session_count,
            app_version_key, last_session, language, first_session, foreground_time);
        DROP TRIGGER subscription_tags_scope;
        CREATE TRIGGER subscription_tags_scope AFTER INSERT ON subscription_tags BEGIN
            UPDATE subscription_tags SET
                resource_id = (SELECT s.resource_id FROM subscriptions s WHERE s.id = NEW.subscription_id),
                pushable = COALESCE((SELECT s.pushable FROM subscriptions s WHERE s.id = NEW.subscription_id), 0),
                app_version_key = (SELECT s.app_version_key FROM subscriptions s WHERE s.id = NEW.subscription_id),
                language = (SELECT s.language FROM subscriptions s WHERE s.id = NEW.subscription_id),
                first_session = (SELECT s.first_session FROM subscriptions s WHERE s.id = NEW.subscription_id),
                last_session = (SELECT s.last_session FROM subscriptions s WHERE s.id = NEW.subscription_id),
                session_count = (SELECT s.session_count FROM subscriptions s WHERE s.id = NEW.subscription_id),
                foreground_time = (SELECT s.foreground_time FROM subscriptions s WHERE s.id = NEW.subscription_id)
            WHERE subscription_id = NEW.subscription_id AND name = NEW.name;
        END;
        DROP TRIGGER subscription_tags_follow;
        CREATE TRIGGER subscription_tags_follow
            AFTER UPDATE OF resource_id, pushable, app_version_key, language, first_session, last_session,
                session_count, foreground_time ON subscriptions
            WHEN OLD.resource_id IS NOT NEW.resource_id OR OLD.pushable IS NOT NEW.pushable
                OR OLD.app_version_key IS NOT NEW.app_version_key OR OLD.language IS NOT NEW.language
                OR OLD.first_session IS NOT NEW.first_session OR OLD.last_session IS NOT NEW.last_session
                OR OLD.session_count IS NOT NEW.session_count OR OLD.foreground_time IS NOT NEW.foreground_time
        BEGIN
            UPDATE subscription_tags SET resource_id = NEW.resource_id, pushable = NEW.pushable,
                app_version_key = NEW.app_version_key, language = NEW.language, first_session = NEW.first_session,
                last_session = NEW.last_session, session_count = NEW.session_count, foreground_time = NEW.foreground_time
            WHERE subscription_id = NEW.id;
        END;
        CREATE INDEX subscriptions_audience_keyset ON subscriptions (resource_id, pushable, id, session_count,
            app_version_key, last_session, first_session, foreground_time, language);
        DROP INDEX subscriptions_audience_by_id;
        """
}
