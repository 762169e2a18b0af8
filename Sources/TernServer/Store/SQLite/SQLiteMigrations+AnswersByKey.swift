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
