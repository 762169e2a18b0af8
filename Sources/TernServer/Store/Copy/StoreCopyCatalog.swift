/// What `tern store copy` knows to differ between the two backends' schemas, in one place, each with
/// why. Everything else is read from the schemas themselves: a table is copied when both have it,
/// a column when both tables have it. A table or column on one side only that is not listed here
/// stops the copy with its name (a migration added to one backend without its translation, or a
/// PostgreSQL schema holding tables that are not Tern's), so nothing is left behind unnoticed.
enum StoreCopyCatalog {
    /// SQLite's own tables (`sqlite_stat1`, `sqlite_stat4` from `ANALYZE`/`PRAGMA optimize`,
    /// `sqlite_sequence`): the engine's bookkeeping, not Tern's data. PostgreSQL keeps its statistics
    /// itself (and a node analyzes grown tables, `PostgresStore.refreshStatistics`).
    static func isSQLiteOwn(_ table: String) -> Bool { table.hasPrefix("sqlite_") }

    /// Tables only the PostgreSQL schema has, and what fills them instead of a copy.
    static let postgresOnlyTables: [String: String] = [
        // The schema version: the PostgreSQL migrations write it as they run, before the copy.
        "tern_schema": "the schema version, written by the migrations",
        // A single SQLite node keeps provider credentials as files under its data directory
        // (`CredentialStore`); nodes sharing a database keep them in it. The copy reads the files.
        "provider_credentials": "filled from DIR/credentials/<project>/<provider>.json",
        // Token marks that another connection's write may have crossed, looked at again once every
        // transaction running at the mark ended (`PostgresStore.recheckTokenMarks`). SQLite has one
        // writer, whose mark sees every subscription: there is never one to look at again.
        "token_mark_rechecks": "empty: SQLite's one writer leaves no token mark to check again",
    ]

    /// Tables a migration puts rows in by itself (the same rows on both backends, which the server then
    /// changes): a freshly migrated database holds them, so they do not make it "not empty", and the
    /// copy replaces them with the SQLite file's rows.
    static let seededByMigrations: [String: String] = [
        // `openHours`: the one row of the usual-open-hour counter's progress through the push events.
        "open_hours_progress": "the open-hour counter's progress row (id 1), which the openHours migration inserts"
    ]

    /// Columns only the PostgreSQL schema has (`table.column`), and the value the copied rows take
    /// (the column's default: the copy leaves them out of its inserts).
    static let postgresOnlyColumns: [String: String] = [
        // `PostgresMigrations.audienceCountShards`: a row per group and connection, read only as
        // sums. SQLite's one row per group goes in shard 0 (no backend has pid 0): the sums are the same.
        "audience_counts.shard": "0: SQLite's one row a group, the sums being what is read"
    ]

    /// Columns only the SQLite schema has (`table.column`), and why leaving them behind loses
    /// nothing. None today.
    static let sqliteOnlyColumns: [String: String] = [:]
}
