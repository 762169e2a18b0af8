import Foundation
import TernSQLite

/// The SDK's database (`tern.sqlite`, WAL) in the app-group container: the outbox and the settings.
/// The app and its Notification Service Extension open the same file; every write is one
/// `BEGIN IMMEDIATE` transaction, so two processes writing at once neither corrupt it nor lose rows.
/// Public for Tern's modules.
public actor CoreStore {
    let db: SQLiteDatabase
    /// The last row meta encoded, with its JSON.
    var lastMeta: (meta: OutboxMeta, data: Data)?
    /// Row metas already decoded, by their JSON.
    var decodedMetas: [Data: OutboxMeta] = [:]
    /// The database file.
    public nonisolated let path: String

    static let fileName = "tern.sqlite"

    static let migrations = [
        """
        CREATE TABLE outbox (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            lane TEXT NOT NULL,
            endpoint TEXT NOT NULL,
            body BLOB NOT NULL,
            idempotency_key TEXT NOT NULL UNIQUE,
            batch_key TEXT,
            needs_token INTEGER NOT NULL DEFAULT 0,
            meta BLOB NOT NULL,
            attempts INTEGER NOT NULL DEFAULT 0,
            created_at REAL NOT NULL,
            first_attempt_at REAL,
            next_attempt_at REAL NOT NULL,
            expires_at REAL
        );
        CREATE INDEX outbox_lane_due ON outbox (lane, next_attempt_at, id);
        CREATE INDEX outbox_batch ON outbox (batch_key) WHERE batch_key IS NOT NULL;
        CREATE TABLE settings (key TEXT PRIMARY KEY, value BLOB NOT NULL);
        CREATE TABLE counters (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
        """,
        // Finding the oldest unsealed row, or a lane's head, by id without sorting the whole lane.
        "CREATE INDEX outbox_lane_batch ON outbox (lane, batch_key, id);",
        // Each module's own schema version (its migrations come with the module: `ModuleParts`).
        "CREATE TABLE module_versions (module TEXT PRIMARY KEY, version INTEGER NOT NULL);",
        // The identity binding journal: logins and logouts in call order, until the server confirms them.
        IdentityJournal.migration,
    ]

    /// Opens (creating and migrating when needed) the database in `directory`.
    public init(directory: URL) throws {
        let path = directory.appendingPathComponent(Self.fileName).path
        self.path = path
        do {
            let db = try SQLiteDatabase(path: path)
            try db.migrate(Self.migrations)
            self.db = db
        } catch let error as SQLiteError {
            throw TernError("cannot open the SDK database at \(path): \(error.message)")
        }
    }

    /// Runs `body` in one write transaction.
    @discardableResult
    func write<T>(_ body: () throws -> T) throws -> T {
        do {
            return try db.transaction(body)
        } catch let error as SQLiteError {
            throw TernError("SDK database write failed (\(path)): \(error.message)")
        }
    }

    func read<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as SQLiteError {
            throw TernError("SDK database read failed (\(path)): \(error.message)")
        }
    }

    /// Applies a module's migrations that this database has not had yet, each in its own
    /// transaction (another process may have applied it meanwhile: then it is skipped).
    public func migrate(module: String, _ migrations: [String]) throws {
        guard !migrations.isEmpty else { return }
        let select = "SELECT version FROM module_versions WHERE module = ?"
        func version() throws -> Int { Int(try db.queryFirst(select, [module])?.int(0) ?? 0) }
        guard try read(version) < migrations.count else { return }
        for step in 0..<migrations.count {
            try write {
                guard try version() == step else { return }
                try db.execute(migrations[step])
                try db.run(
                    "INSERT INTO module_versions (module, version) VALUES (?, ?) "
                        + "ON CONFLICT(module) DO UPDATE SET version = excluded.version",
                    [module, step + 1])
            }
        }
    }

    /// The number of `module`'s migrations applied to this database.
    public func version(module: String) throws -> Int {
        try read {
            Int(try db.queryFirst("SELECT version FROM module_versions WHERE module = ?", [module])?.int(0) ?? 0)
        }
    }

    // MARK: Settings

    /// A setting, decoded from JSON; nil when absent or unreadable.
    public func setting<T: Decodable & Sendable>(_ key: String, as type: T.Type = T.self) -> T? {
        guard let row = try? db.queryFirst("SELECT value FROM settings WHERE key = ?", [key]), let data = row.data(0)
        else { return nil }
        return try? JSONDecoder().decode(T.self, from: data)
    }

    /// Saves a setting as JSON; nil removes it.
    public func setSetting<T: Encodable & Sendable>(_ key: String, _ value: T?) throws {
        guard let value else {
            try write { try db.run("DELETE FROM settings WHERE key = ?", [key]) }
            return
        }
        let data = try JSONEncoder().encode(value)
        try write {
            try db.run(
                "INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                [key, data])
        }
    }

    // MARK: Counters

    func add(_ name: String, _ amount: Int) throws {
        try db.run(
            "INSERT INTO counters (name, value) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET value = value + excluded.value",
            [name, amount])
    }

    func counter(_ name: String) throws -> Int {
        Int(try db.queryFirst("SELECT value FROM counters WHERE name = ?", [name])?.int(0) ?? 0)
    }

    /// Deletes every row of every table: the outbox, settings and counters.
    public func clearAll() throws {
        try write {
            try db.run("DELETE FROM outbox")
            try db.run("DELETE FROM settings")
            try db.run("DELETE FROM counters")
            try db.run("DELETE FROM identity_journal")
        }
    }
}
