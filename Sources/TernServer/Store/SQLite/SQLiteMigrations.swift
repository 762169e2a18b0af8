/// The SQLite schema, one entry per version: `all[0]` brings an empty file to version 1. Never edit
/// a released entry; append a new one.
enum SQLiteMigrations {
    static let all: [String] = [
        version1, deliveryTables, tagTables, deliveryTurns, keyRoles, inAppTables, inboxAndPreferences,
        apnsEnvironmentAndTestDevices, identityBindings, segments, segmentCounts, segmentRows,
        messageCounts, writeIndexes, deliveryPages, deliveryQueue, resourceFanOut, sentRuns, answersByKey,
        profileFieldsByKey, messageHistory, identityProfiles, messageCancels,
        messageSchedules, frequencyCaps, messageVariants, webhooks, variantWinnersAndLetters, openHours,
        liveActivities, conversions, triggers, liveActivityChannels, messageRecurrence, recurrenceWeekdays,
        triggerReentry,
        messageEdits, localWeekdays,
        messageTemplates,
        messageTimelines,
        audienceLists,
        messageList,
        controlGroups,
    ]

    /// Projects and their tenancy, profiles, subscriptions, goals, push events, idempotent answers.
    static let version1 = """
        CREATE TABLE projects (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL,
            audience TEXT NOT NULL,
            created_at INTEGER NOT NULL
        );
        CREATE TABLE admin_keys (
            id INTEGER PRIMARY KEY,
            digest TEXT NOT NULL UNIQUE,
            name TEXT NOT NULL,
            created_at INTEGER NOT NULL
        );
        CREATE TABLE profile_databases (
            id INTEGER PRIMARY KEY,
            project_id INTEGER NOT NULL REFERENCES projects (id),
            name TEXT NOT NULL,
            created_at INTEGER NOT NULL,
            UNIQUE (project_id, name)
        );
        CREATE TABLE resources (
            id INTEGER PRIMARY KEY,
            project_id INTEGER NOT NULL REFERENCES projects (id),
            db_id INTEGER NOT NULL REFERENCES profile_databases (id),
            name TEXT NOT NULL,
            channels TEXT NOT NULL,
            rtoken TEXT NOT NULL UNIQUE,
            created_at INTEGER NOT NULL
        );
        CREATE TABLE categories (
            resource_id INTEGER NOT NULL REFERENCES resources (id) ON DELETE CASCADE,
            name TEXT NOT NULL,
            title TEXT NOT NULL,
            steady INTEGER NOT NULL,
            PRIMARY KEY (resource_id, name)
        );
        CREATE TABLE pixels (
            id INTEGER PRIMARY KEY,
            project_id INTEGER NOT NULL REFERENCES projects (id),
            sid TEXT NOT NULL,
            name TEXT NOT NULL,
            created_at INTEGER NOT NULL,
            UNIQUE (project_id, sid)
        );
        CREATE TABLE jwt_keys (
            id INTEGER PRIMARY KEY,
            project_id INTEGER NOT NULL REFERENCES projects (id),
            kid TEXT NOT NULL,
            algorithm TEXT NOT NULL,
            key TEXT NOT NULL,
            created_at INTEGER NOT NULL,
            UNIQUE (project_id, kid)
        );
        CREATE INDEX jwt_keys_kid ON jwt_keys (kid);
        CREATE TABLE profiles (
            id INTEGER PRIMARY KEY,
            public_id TEXT NOT NULL UNIQUE,
            db_id INTEGER NOT NULL REFERENCES profile_databases (id),
            is_test INTEGER NOT NULL,
            skip_triggers INTEGER NOT NULL,
            created_at INTEGER NOT NULL,
            updated_at INTEGER NOT NULL
        );
        CREATE TABLE profile_fields (
            profile_id INTEGER NOT NULL REFERENCES profiles (id) ON DELETE CASCADE,
            name TEXT NOT NULL,
            value TEXT NOT NULL,
            PRIMARY KEY (profile_id, name)
        );
        CREATE INDEX profile_fields_value ON profile_fields (name, value);
        CREATE TABLE subscriptions (
            id INTEGER PRIMARY KEY,
            profile_id INTEGER NOT NULL REFERENCES profiles (id) ON DELETE CASCADE,
            resource_id INTEGER NOT NULL REFERENCES resources (id),
            channel TEXT NOT NULL,
            provider TEXT NOT NULL,
            token TEXT NOT NULL,
            status TEXT NOT NULL,
            hash_id TEXT NOT NULL,
            fields TEXT NOT NULL,
            cats TEXT NOT NULL,
            priority INTEGER,
            cc_data TEXT,
            client_time INTEGER NOT NULL,
            created_at INTEGER NOT NULL,
            updated_at INTEGER NOT NULL,
            UNIQUE (profile_id, resource_id, channel, provider, token)
        );
        CREATE INDEX subscriptions_address ON subscriptions (resource_id, channel, provider, token);
        CREATE INDEX subscriptions_token ON subscriptions (provider, token);
        CREATE TABLE goals (
            id INTEGER PRIMARY KEY,
            pixel_id INTEGER NOT NULL REFERENCES pixels (id),
            profile_id INTEGER REFERENCES profiles (id) ON DELETE SET NULL,
            resource_id INTEGER,
            client_id TEXT NOT NULL,
            event_name TEXT NOT NULL,
            send_message_id TEXT,
            payload TEXT,
            matching TEXT,
            matching_type TEXT,
            utm TEXT,
            time INTEGER NOT NULL,
            received_at INTEGER NOT NULL
        );
        CREATE INDEX goals_pixel ON goals (pixel_id, id);
        CREATE TABLE push_events (
            id INTEGER PRIMARY KEY,
            resource_id INTEGER NOT NULL REFERENCES resources (id),
            profile_id INTEGER REFERENCES profiles (id) ON DELETE SET NULL,
            message_id TEXT NOT NULL,
            type TEXT NOT NULL,
            time INTEGER NOT NULL,
            received_at INTEGER NOT NULL,
            UNIQUE (resource_id, message_id, type)
        );
        CREATE INDEX push_events_message ON push_events (message_id);
        CREATE TABLE idempotent_answers (
            scope TEXT NOT NULL,
            key TEXT NOT NULL,
            fingerprint TEXT NOT NULL,
            status INTEGER NOT NULL,
            body BLOB NOT NULL,
            created_at INTEGER NOT NULL,
            PRIMARY KEY (scope, key)
        );
        CREATE INDEX idempotent_answers_age ON idempotent_answers (created_at);
        """

    /// Tags of bindings (a push subscription of one install in one profile), by key; indexed by key and
    /// value for audience filters. They go with their subscription.
    static let tagTables = """
        CREATE TABLE subscription_tags (
            subscription_id INTEGER NOT NULL REFERENCES subscriptions (id) ON DELETE CASCADE,
            name TEXT NOT NULL,
            value TEXT NOT NULL,
            updated_at INTEGER NOT NULL,
            PRIMARY KEY (subscription_id, name)
        );
        CREATE INDEX subscription_tags_value ON subscription_tags (name, value);
        """

    /// Keys per project with a role (the existing admin keys become server keys), rotation with a
    /// grace period for the previous secret, revocation, and the audit log of who changed what.
    static let keyRoles = """
        ALTER TABLE admin_keys ADD COLUMN project_id INTEGER REFERENCES projects (id);
        ALTER TABLE admin_keys ADD COLUMN role TEXT NOT NULL DEFAULT 'server';
        ALTER TABLE admin_keys ADD COLUMN created_by INTEGER;
        ALTER TABLE admin_keys ADD COLUMN rotated_at INTEGER;
        ALTER TABLE admin_keys ADD COLUMN previous_digest TEXT;
        ALTER TABLE admin_keys ADD COLUMN previous_expires_at INTEGER;
        ALTER TABLE admin_keys ADD COLUMN revoked_at INTEGER;
        CREATE INDEX admin_keys_previous ON admin_keys (previous_digest);
        CREATE INDEX admin_keys_project ON admin_keys (project_id);
        CREATE TABLE audit_log (
            id INTEGER PRIMARY KEY,
            at INTEGER NOT NULL,
            key_id INTEGER,
            project_id INTEGER,
            action TEXT NOT NULL,
            target TEXT NOT NULL,
            status INTEGER NOT NULL,
            request_id TEXT NOT NULL,
            detail TEXT NOT NULL
        );
        CREATE INDEX audit_log_project ON audit_log (project_id, id);
        """

    /// The inbox (messages per profile with a version per change, tombstones for removed ones, the
    /// project's expiry), preferences (profile → channel → category → on/off), topics and their
    /// followers, and how many devices a message skipped because of a preference.
    static let inboxAndPreferences = """
        CREATE TABLE inbox_settings (
            project_id INTEGER PRIMARY KEY REFERENCES projects (id),
            expiry_days INTEGER NOT NULL,
            updated_at INTEGER NOT NULL
        );
        CREATE TABLE inbox_versions (
            profile_id INTEGER PRIMARY KEY REFERENCES profiles (id) ON DELETE CASCADE,
            version INTEGER NOT NULL
        );
        CREATE TABLE inbox_messages (
            id INTEGER PRIMARY KEY,
            profile_id INTEGER NOT NULL REFERENCES profiles (id) ON DELETE CASCADE,
            message_id INTEGER,
            title TEXT,
            body TEXT,
            image_url TEXT,
            link TEXT,
            data TEXT NOT NULL,
            created_at INTEGER NOT NULL,
            expires_at INTEGER NOT NULL,
            read INTEGER NOT NULL,
            removed TEXT,
            version INTEGER NOT NULL
        );
        CREATE INDEX inbox_messages_version ON inbox_messages (profile_id, version);
        CREATE INDEX inbox_messages_live ON inbox_messages (profile_id, created_at) WHERE removed IS NULL;
        CREATE INDEX inbox_messages_expiry ON inbox_messages (expires_at);
        CREATE UNIQUE INDEX inbox_messages_copy ON inbox_messages (profile_id, message_id) WHERE message_id IS NOT NULL;
        CREATE TABLE preferences (
            profile_id INTEGER NOT NULL REFERENCES profiles (id) ON DELETE CASCADE,
            channel TEXT NOT NULL,
            category TEXT NOT NULL,
            enabled INTEGER NOT NULL,
            updated_at INTEGER NOT NULL,
            PRIMARY KEY (profile_id, channel, category)
        );
        CREATE INDEX preferences_off ON preferences (channel, category, profile_id) WHERE enabled = 0;
        CREATE TABLE topics (
            id INTEGER PRIMARY KEY,
            project_id INTEGER NOT NULL REFERENCES projects (id),
            name TEXT NOT NULL,
            created_at INTEGER NOT NULL,
            UNIQUE (project_id, name)
        );
        CREATE TABLE topic_followers (
            topic_id INTEGER NOT NULL REFERENCES topics (id) ON DELETE CASCADE,
            profile_id INTEGER NOT NULL REFERENCES profiles (id) ON DELETE CASCADE,
            created_at INTEGER NOT NULL,
            PRIMARY KEY (topic_id, profile_id)
        );
        CREATE TABLE message_skips (
            message_id INTEGER PRIMARY KEY REFERENCES messages (id),
            by_preference INTEGER NOT NULL
        );
        """
}
