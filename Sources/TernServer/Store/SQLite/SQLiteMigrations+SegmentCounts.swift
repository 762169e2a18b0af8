extension SQLiteMigrations {
    /// Fast previews of broad segments (issue 14): `audience_counts` holds, per resource, how many
    /// pushable subscriptions share each combination of the low-cardinality built-in fields
    /// (`session_count`, `app_version_key`, `language`), kept by triggers on every insert, update
    /// and delete of a subscription (a cascade from its profile included), so a filter on those
    /// fields alone is counted by summing a few hundred groups instead of reading an index entry
    /// per match. `group_key` names a combination with its NULLs (`-`), for the upsert.
    /// Each tag row carries its subscription's `resource_id` and `pushable` (set by a trigger when
    /// the tag is written and when the subscription's change), so a lone tag condition is counted
    /// from the tags' index alone. `subscriptions_audience_recent` leads with `last_session`, so a
    /// filter on recent sessions reads only the index range of those sessions.
    static let segmentCounts = """
        CREATE TABLE audience_counts (
            resource_id INTEGER NOT NULL,
            group_key TEXT NOT NULL,
            session_count INTEGER,
            app_version_key TEXT,
            language TEXT,
            n INTEGER NOT NULL,
            PRIMARY KEY (resource_id, group_key)
        );
        INSERT INTO audience_counts (resource_id, group_key, session_count, app_version_key, language, n)
            SELECT resource_id, \(groupKey("")), session_count, app_version_key, language, COUNT(*)
            FROM subscriptions WHERE pushable = 1 GROUP BY resource_id, session_count, app_version_key, language;
        CREATE TRIGGER audience_counts_insert AFTER INSERT ON subscriptions WHEN NEW.pushable = 1 BEGIN
            \(countIn("NEW"))
        END;
        CREATE TRIGGER audience_counts_delete AFTER DELETE ON subscriptions WHEN OLD.pushable = 1 BEGIN
            \(countOut("OLD"))
        END;
        CREATE TRIGGER audience_counts_update
            AFTER UPDATE OF resource_id, pushable, session_count, app_version_key, language ON subscriptions
            WHEN (OLD.pushable = 1 OR NEW.pushable = 1) AND (OLD.resource_id IS NOT NEW.resource_id
                OR OLD.pushable IS NOT NEW.pushable OR OLD.session_count IS NOT NEW.session_count
                OR OLD.app_version_key IS NOT NEW.app_version_key OR OLD.language IS NOT NEW.language)
        BEGIN
            \(countOut("OLD", when: "OLD.pushable = 1"))
            \(countIn("NEW", when: "NEW.pushable = 1"))
        END;
        ALTER TABLE subscription_tags ADD COLUMN resource_id INTEGER;
        ALTER TABLE subscription_tags ADD COLUMN pushable INTEGER NOT NULL DEFAULT 0;
        UPDATE subscription_tags SET
            resource_id = (SELECT s.resource_id FROM subscriptions s WHERE s.id = subscription_tags.subscription_id),
            pushable = COALESCE((SELECT s.pushable FROM subscriptions s WHERE s.id = subscription_tags.subscription_id), 0);
        CREATE INDEX subscription_tags_counts ON subscription_tags (name, value, resource_id, pushable);
        CREATE TRIGGER subscription_tags_scope AFTER INSERT ON subscription_tags BEGIN
            UPDATE subscription_tags SET
                resource_id = (SELECT s.resource_id FROM subscriptions s WHERE s.id = NEW.subscription_id),
                pushable = COALESCE((SELECT s.pushable FROM subscriptions s WHERE s.id = NEW.subscription_id), 0)
            WHERE subscription_id = NEW.subscription_id AND name = NEW.name;
        END;
        CREATE TRIGGER subscription_tags_follow AFTER UPDATE OF resource_id, pushable ON subscriptions
            WHEN OLD.resource_id IS NOT NEW.resource_id OR OLD.pushable IS NOT NEW.pushable
        BEGIN
            UPDATE subscription_tags SET resource_id = NEW.resource_id, pushable = NEW.pushable
            WHERE subscription_id = NEW.id;
        END;
        CREATE INDEX subscriptions_audience_recent ON subscriptions (resource_id, pushable, last_session, language,
            session_count, app_version_key, first_session, foreground_time);
        """

    /// The group key of a row's (`NEW.`, `OLD.` or none) built-in columns.
    static func groupKey(_ row: String) -> String {
        let prefix = row.isEmpty ? "" : row + "."
        return "COALESCE(\(prefix)session_count, '-') || '|' || COALESCE(\(prefix)app_version_key, '-') || '|' "
            + "|| COALESCE('=' || \(prefix)language, '-')"
    }

    static func countIn(_ row: String, when: String = "1") -> String {
        """
        INSERT INTO audience_counts (resource_id, group_key, session_count, app_version_key, language, n)
                SELECT \(row).resource_id, \(groupKey(row)), \(row).session_count, \(row).app_version_key,
                    \(row).language, 1 WHERE \(when)
                ON CONFLICT (resource_id, group_key) DO UPDATE SET n = n + 1;
        """
    }

    static func countOut(_ row: String, when: String = "1") -> String {
        """
        UPDATE audience_counts SET n = n - 1
                WHERE \(when) AND resource_id = \(row).resource_id AND group_key = \(groupKey(row));
                DELETE FROM audience_counts
                WHERE \(when) AND resource_id = \(row).resource_id AND group_key = \(groupKey(row)) AND n = 0;
        """
    }
}
