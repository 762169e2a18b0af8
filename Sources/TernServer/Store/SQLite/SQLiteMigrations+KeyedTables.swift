extension SQLiteMigrations {
    /// Issue 18: `idempotent_answers` keyed by (scope, key) itself (`WITHOUT ROWID`). As a rowid
    /// table its primary key was an index beside the rows: every SDK write stored its answer in
    /// three B-trees (the rows, that index, `idempotent_answers_age`) and looked an answer up in
    /// two (the index, then the row). Now the rows are the key's B-tree: two and one. An answer is
    /// a few hundred bytes (a subscribe's, 338 in the bench), well within what a row of such a
    /// table keeps on its own page.
    static let answersByKey = """
        CREATE TABLE idempotent_answers_by_key (
            scope TEXT NOT NULL,
            key TEXT NOT NULL,
            fingerprint TEXT NOT NULL,
            status INTEGER NOT NULL,
            body BLOB NOT NULL,
            created_at INTEGER NOT NULL,
            PRIMARY KEY (scope, key)
        ) WITHOUT ROWID;
        INSERT INTO idempotent_answers_by_key (scope, key, fingerprint, status, body, created_at)
            SELECT scope, key, fingerprint, status, body, created_at FROM idempotent_answers;
        DROP TABLE idempotent_answers;
        ALTER TABLE idempotent_answers_by_key RENAME TO idempotent_answers;
        CREATE INDEX idempotent_answers_age ON idempotent_answers (created_at);
        """
}

extension SQLiteMigrations {
    /// Issue 18: `profile_fields` keyed by (profile, name) itself (`WITHOUT ROWID`), for the same
    /// reason as ``answersByKey``: each field a subscribe, an update or a goal sets was stored in
    /// three B-trees (the rows, the primary key's index, `profile_fields_value`), now in two; and a
    /// profile's fields are one range of the table. `profile_fields_value` (name, value) now ends
    /// with the profile's id instead of a rowid, which is all its query reads from it.
    static let profileFieldsByKey = """
        CREATE TABLE profile_fields_by_key (
            profile_id INTEGER NOT NULL REFERENCES profiles (id) ON DELETE CASCADE,
            name TEXT NOT NULL,
            value TEXT NOT NULL,
            PRIMARY KEY (profile_id, name)
        ) WITHOUT ROWID;
        INSERT INTO profile_fields_by_key (profile_id, name, value)
            SELECT profile_id, name, value FROM profile_fields;
        DROP TABLE profile_fields;
        ALTER TABLE profile_fields_by_key RENAME TO profile_fields;
        CREATE INDEX profile_fields_value ON profile_fields (name, value);
        """
}
