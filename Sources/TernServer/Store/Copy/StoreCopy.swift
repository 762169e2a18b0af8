import Foundation
import TernProtocol
import TernSQLite

/// `tern store copy`: everything a server on its embedded SQLite file keeps (the file under `--data`
/// and the provider credentials beside it) copied into an empty PostgreSQL database, which
/// `tern serve --database` then serves as it was.
///
/// ```swift
/// let report = try StoreCopy.run(dataDirectory: "/var/lib/tern", databaseURL: "postgresql://…")
/// print(report.rows)   // [("admin_keys", 2), ("audience_counts", 14), …]
/// ```
///
/// - The SQLite file must be at this build's newest schema version and no other process may have it
///   open (a running `tern serve` on the directory is refused, by the lock every SQLite connection
///   holds on the file's shared memory while it is open); it is read in one read transaction, so the
///   copy is one consistent moment of it.
/// - The database is brought to this build's newest PostgreSQL schema by the same migrations a node
///   runs at start, under the same advisory lock, and must hold no row in any of its tables.
/// - The tables and their columns are read from both schemas: each table both have is copied, its
///   columns both have, each value converted to its PostgreSQL column's type, parents before
///   children (the schema's foreign keys stay checked); what one side alone has is refused unless
///   `StoreCopyCatalog` lists it as one backend's own. Triggers are off during the copy (in the
///   copy's transaction only): they keep derived tables (audience counts, the tags' copies of their
///   subscription's columns), which are copied as SQLite kept them.
/// - Every identity sequence is set to its column's largest copied id, so new rows get new ids.
/// - Migrations, rows, credentials and sequences are one transaction: a failure anywhere leaves
///   the database as it was.
public enum StoreCopy {
    /// What was copied, for the operator.
    public struct Report: Sendable {
        /// The SQLite file read.
        public var source: String
        /// The SQLite file's schema version (this tern's newest).
        public var sourceVersion: Int
        /// The database written, its password hidden.
        public var target: String
        /// The database's schema version after the copy (this tern's newest PostgreSQL one).
        public var targetVersion: Int
        /// Rows copied by table, in the order they were copied (parents first).
        public var rows: [(table: String, rows: Int)]
        /// The provider credentials carried from files into the database: project and provider.
        public var credentials: [(projectId: Int64, provider: String)]
        /// Files under `credentials/` that are not a provider credential, left where they are.
        public var ignoredFiles: [String]
        /// Identity sequences moved past the ids copied (`table.column` and the sequence's new value).
        public var sequences: [(column: String, value: Int64)]
    }

    /// Why the copy did not happen, in words for the operator; nothing was written.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        /// What went wrong and what to do, e.g. `stop the server first`.
        public let description: String
        /// The database could not be reached (`false`: the copy was refused or failed).
        public let unavailable: Bool

        init(_ description: String, unavailable: Bool = false) {
            self.description = description
            self.unavailable = unavailable
        }
    }

    /// Rows a single `INSERT` carries at most, and parameters (PostgreSQL takes up to 65,535).
    static let rowsPerInsert = 500
    static let parametersPerInsert = 30_000

    /// Copies the store under `dataDirectory` into the database at `databaseURL`.
    ///
    /// - Parameters:
    ///   - dataDirectory: The directory `tern serve --data` runs on: `tern.sqlite`, `credentials/`.
    ///   - databaseURL: A `postgresql://` URL, as `tern serve --database` takes it.
    ///   - progress: Told each table's name and rows as it is done (a large store takes a while).
    /// - Returns: What was copied.
    /// - Throws: ``Failure`` saying what to do; the database is then as it was.
    public static func run(
        dataDirectory: String, databaseURL: String, progress: (String, Int) -> Void = { _, _ in }
    ) throws(Failure) -> Report {
        let path = (dataDirectory as NSString).appendingPathComponent("tern.sqlite")
        let source = try StoreCopySource(path: path)
        defer { source.close() }
        let credentials = try StoreCopyCredentials.read(
            directory: (dataDirectory as NSString).appendingPathComponent("credentials"))
        let redacted = PostgresStore.redacted(databaseURL)
        let connection: PostgresConnection
        do {
            connection = try PostgresConnection(url: databaseURL)
        } catch {
            throw Failure("cannot connect to PostgreSQL at \(redacted): \(error.message)", unavailable: true)
        }
        do {
            try connection.execute("BEGIN")
            let report = try copy(
                from: source, credentials: credentials, to: connection, redacted: redacted, progress: progress)
            try connection.execute("COMMIT")
            return report
        } catch {
            try? connection.execute("ROLLBACK")
            throw failure(error, redacted)
        }
    }

    /// The copy itself, inside the transaction `run` opened and ends.
    private static func copy(
        from source: StoreCopySource, credentials: StoreCopyCredentials, to connection: PostgresConnection,
        redacted: String, progress: (String, Int) -> Void
    ) throws -> Report {
        let version = try PostgresStore.migrateInTransaction(connection)
        let target = try StoreCopyTarget(connection)
        try target.requireEmpty(redacted)
        let plan = try StoreCopyPlan(source: source, target: target)
        // What the migrations seeded goes: the SQLite file has the same rows, as the server left them.
        for table in StoreCopyCatalog.seededByMigrations.keys.sorted() where target.tables[table] != nil {
            try connection.run("DELETE FROM \(quoted(table))")
        }
        for table in target.triggered { try connection.execute("ALTER TABLE \(quoted(table)) DISABLE TRIGGER USER") }
        var rows: [(String, Int)] = []
        for table in plan.tables {
            let count = try copyTable(table, from: source, to: connection)
            rows.append((table.name, count))
            progress(table.name, count)
        }
        for (projectId, provider, json, updatedAt) in credentials.found {
            guard source.projects.contains(projectId) else {
                throw Failure(
                    "\(credentials.directory)/\(projectId)/\(provider).json: project \(projectId) is not in "
                        + "\(source.path); move the file out of the data directory and copy again")
            }
            try connection.run(
                "INSERT INTO provider_credentials (project_id, kind, credential, updated_at) VALUES (?, ?, ?, ?)",
                [projectId, provider, json, updatedAt])
        }
        var sequences: [(String, Int64)] = []
        for (table, column) in target.identities where plan.tables.contains(where: { $0.name == table }) {
            let set = try connection.queryFirst(
                "SELECT setval(pg_get_serial_sequence(?, ?), m) FROM (SELECT max(\(quoted(column))) AS m FROM "
                    + "\(quoted(table))) copied WHERE m IS NOT NULL", [quoted(table), column])
            if let value = set?.int(0) { sequences.append(("\(table).\(column)", value)) }
        }
        for table in target.triggered { try connection.execute("ALTER TABLE \(quoted(table)) ENABLE TRIGGER USER") }
        return Report(
            source: source.path, sourceVersion: source.version, target: redacted, targetVersion: version, rows: rows,
            credentials: credentials.found.map { ($0.projectId, $0.provider) }, ignoredFiles: credentials.ignored,
            sequences: sequences)
    }

    /// Copies one table's rows, a few hundred to an `INSERT`; returns how many.
    private static func copyTable(
        _ table: StoreCopyPlan.Table, from source: StoreCopySource, to connection: PostgresConnection
    )
        throws -> Int
    {
        let columns = table.columns.map { quoted($0.name) }.joined(separator: ", ")
        let perInsert = max(1, min(rowsPerInsert, parametersPerInsert / max(1, table.columns.count)))
        let tuple = "(" + Array(repeating: "?", count: table.columns.count).joined(separator: ", ") + ")"
        func insert(_ count: Int) -> String {
            "INSERT INTO \(quoted(table.name)) (\(columns)) VALUES "
                + Array(repeating: tuple, count: count).joined(separator: ", ")
        }
        let full = insert(perInsert)
        var batch: [SQLiteValue] = []
        batch.reserveCapacity(perInsert * table.columns.count)
        var copied = 0
        var inBatch = 0
        func flush() throws {
            guard inBatch > 0 else { return }
            do {
                try connection.run(inBatch == perInsert ? full : insert(inBatch), batch)
            } catch {
                throw Failure(
                    "PostgreSQL refused a row of \(table.name) (rows \(copied - inBatch + 1)–\(copied) of \(source.path)): "
                        + "\(error.message)")
            }
            batch.removeAll(keepingCapacity: true)
            inBatch = 0
        }
        let select =
            "SELECT " + table.columns.map { quoted($0.name) }.joined(separator: ", ") + " FROM \(quoted(table.name))"
        try source.database.forEachRow(select) { read in
            copied += 1
            let rowValues = read.values
            for (index, column) in table.columns.enumerated() {
                do {
                    batch.append(try column.kind.converted(rowValues[index]))
                } catch let error as StoreCopyValue.Mismatch {
                    throw mismatch(error, table: table, column: column, row: copied, values: rowValues, in: source.path)
                }
            }
            inBatch += 1
            if inBatch == perInsert { try flush() }
        }
        try flush()
        return copied
    }

    /// A value PostgreSQL's column cannot take as it is, named with its table, column and row.
    private static func mismatch(
        _ error: StoreCopyValue.Mismatch, table: StoreCopyPlan.Table, column: StoreCopyTarget.Column, row: Int,
        values: [SQLiteValue], in path: String
    ) -> Failure {
        var place = "row \(row)"
        if let id = table.columns.firstIndex(where: { $0.name == "id" }) { place += " (id \(describe(values[id])))" }
        return Failure(
            "\(table.name).\(column.name), \(place) of \(path): \(error.reason); PostgreSQL's column is \(column.type)")
    }

    /// A name in double quotes, as PostgreSQL and SQLite both read an identifier.
    static func quoted(_ name: String) -> String { "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }

    static func describe(_ value: SQLiteValue) -> String {
        switch value {
        case .null: "NULL"
        case .integer(let number): "\(number)"
        case .real(let number): "\(number)"
        case .text(let text): "'" + (text.count > 40 ? String(text.prefix(40)) + "…" : text) + "'"
        case .blob(let bytes): "a blob of \(bytes.count) bytes"
        }
    }

    /// What any error of the copy says to the operator.
    private static func failure(_ error: any Error, _ redacted: String) -> Failure {
        switch error {
        case let error as Failure: return error
        case let error as PostgresError:
            return Failure(
                "PostgreSQL at \(redacted): \(error.message); nothing was written", unavailable: error.isUnavailable)
        case let error as StoreError: return Failure("PostgreSQL at \(redacted): \(error)")
        case let error as SQLiteError: return Failure("reading the SQLite file: \(error.message)")
        default: return Failure("\(error)")
        }
    }
}

/// The SQLite file, open read-only in one read transaction for the whole copy.
final class StoreCopySource {
    let path: String
    let database: SQLiteDatabase
    let version: Int
    /// Tables (SQLite's own left out) and their columns, in the file's order.
    let tables: [String: [String]]
    /// The projects' ids: provider credentials must name one.
    let projects: Set<Int64>

    init(path: String) throws(StoreCopy.Failure) {
        self.path = path
        guard FileManager.default.fileExists(atPath: path) else {
            throw StoreCopy.Failure(
                "no Tern store at \(path): --data names the directory tern serve runs on (the one holding tern.sqlite)")
        }
        if let holder = SQLiteOpenCheck.otherProcess(holding: path) {
            throw StoreCopy.Failure(
                "\(path) is open in process \(holder) (a tern serve on this directory?): stop the server first; "
                    + "the copy is one moment of the file, and whatever a running server wrote after it would be lost")
        }
        do {
            database = try SQLiteDatabase(path: path, readOnly: true)
            // One read transaction from the first read to the end: every table as of one moment.
            try database.execute("BEGIN")
            version = try database.userVersion
            let newest = SQLiteMigrations.all.count
            if version < newest {
                throw StoreCopy.Failure(
                    "\(path) is at schema version \(version), this tern's is \(newest): start this version's "
                        + "tern serve on the directory once (it migrates the file as it opens it), stop it, then copy")
            }
            if version > newest {
                throw StoreCopy.Failure(
                    "\(path) is at schema version \(version), newer than this tern knows (\(newest)): copy with the "
                        + "tern that last served it")
            }
            var tables: [String: [String]] = [:]
            for row in try database.query("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name") {
                guard let name = row.string(0), !StoreCopyCatalog.isSQLiteOwn(name) else { continue }
                tables[name] = try database.query("SELECT name FROM pragma_table_info(?) ORDER BY cid", [name])
                    .compactMap { $0.string(0) }
            }
            self.tables = tables
            projects = Set(try database.query("SELECT id FROM projects").compactMap { $0.int(0) })
        } catch let error as StoreCopy.Failure {
            throw error
        } catch let error as SQLiteError {
            throw StoreCopy.Failure("cannot read \(path): \(error.message)")
        } catch {
            throw StoreCopy.Failure("cannot read \(path): \(error)")
        }
    }

    /// Ends the read transaction.
    func close() { try? database.execute("COMMIT") }
}

/// The PostgreSQL schema after the migrations: its tables' columns, foreign keys, triggers and
/// identity columns, from `pg_catalog`, in the connection's current schema.
struct StoreCopyTarget {
    struct Column {
        let name: String
        /// As PostgreSQL writes it (`bigint`, `boolean`, …), for messages.
        let type: String
        let kind: StoreCopyValue
        /// A generated column, which PostgreSQL computes and a copy cannot write.
        let generated: Bool
    }

    /// Tables and their columns in the schema's order.
    let tables: [String: [Column]]
    /// Each table's parents (the tables its foreign keys reference), itself left out.
    let parents: [String: Set<String>]
    /// Tables with triggers of their own (not a foreign key's).
    let triggered: [String]
    /// Identity and serial columns, whose sequences the copy sets: (table, column).
    let identities: [(String, String)]
    private let connection: PostgresConnection

    init(_ connection: PostgresConnection) throws {
        self.connection = connection
        var tables: [String: [Column]] = [:]
        var identities: [(String, String)] = []
        let columns = try connection.query(
            """
            SELECT c.relname, a.attname, format_type(a.atttypid, a.atttypmod), t.typname, a.attgenerated <> '',
                a.attidentity <> '' OR COALESCE(pg_get_expr(d.adbin, d.adrelid) LIKE 'nextval(%', false)
            FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid JOIN pg_type t ON t.oid = a.atttypid
                LEFT JOIN pg_attrdef d ON d.adrelid = c.oid AND d.adnum = a.attnum
            WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind IN ('r', 'p') AND a.attnum > 0
                AND NOT a.attisdropped
            ORDER BY c.relname, a.attnum
            """)
        for row in columns {
            guard let table = row.string(0), let name = row.string(1) else { continue }
            let type = row.string(2) ?? "?"
            tables[table, default: []].append(
                Column(
                    name: name, type: type, kind: StoreCopyValue(postgresType: row.string(3) ?? ""),
                    generated: row.bool(4) ?? false))
            if row.bool(5) == true { identities.append((table, name)) }
        }
        var parents: [String: Set<String>] = [:]
        let keys = try connection.query(
            """
            SELECT child.relname, parent.relname FROM pg_constraint k
                JOIN pg_class child ON child.oid = k.conrelid JOIN pg_class parent ON parent.oid = k.confrelid
            WHERE k.contype = 'f' AND child.relnamespace = current_schema()::regnamespace
            """)
        for row in keys {
            guard let child = row.string(0), let parent = row.string(1), child != parent else { continue }
            parents[child, default: []].insert(parent)
        }
        let triggered = try connection.query(
            """
            SELECT DISTINCT c.relname FROM pg_trigger g JOIN pg_class c ON c.oid = g.tgrelid
            WHERE NOT g.tgisinternal AND c.relnamespace = current_schema()::regnamespace ORDER BY c.relname
            """
        ).compactMap { $0.string(0) }
        self.tables = tables
        self.parents = parents
        self.triggered = triggered
        self.identities = identities
    }

    /// Refuses a database whose tables hold a row (the version table and the rows migrations write
    /// themselves aside, ``StoreCopyCatalog/seededByMigrations``): the copy is for an empty one, and
    /// merging two stores' ids is not something it can do.
    func requireEmpty(_ redacted: String) throws {
        var filled: [String] = []
        for table in tables.keys.sorted()
        where table != "tern_schema" && StoreCopyCatalog.seededByMigrations[table] == nil {
            let found = try connection.queryFirst("SELECT EXISTS (SELECT 1 FROM \(StoreCopy.quoted(table)))")
            if found?.bool(0) == true { filled.append(table) }
        }
        guard filled.isEmpty else {
            let named =
                filled.prefix(5).joined(separator: ", ") + (filled.count > 5 ? " and \(filled.count - 5) more" : "")
            throw StoreCopy.Failure(
                "the database at \(redacted) already has data (in \(named)): copy into an empty database "
                    + "(createdb a new one, or point --database at an empty schema); nothing was changed")
        }
    }
}

/// Which tables go, in which order, with which columns: both schemas matched, with
/// ``StoreCopyCatalog``'s exceptions; anything else one side alone has stops the copy.
struct StoreCopyPlan {
    struct Table {
        let name: String
        let columns: [StoreCopyTarget.Column]
    }

    /// Parents before children.
    let tables: [Table]

    init(source: StoreCopySource, target: StoreCopyTarget) throws {
        var problems: [String] = []
        for table in source.tables.keys.sorted() where target.tables[table] == nil {
            problems.append("table \(table) is in the SQLite file but not in PostgreSQL's schema")
        }
        for table in target.tables.keys.sorted()
        where source.tables[table] == nil && StoreCopyCatalog.postgresOnlyTables[table] == nil {
            problems.append("table \(table) is in PostgreSQL's schema but not in the SQLite file")
        }
        var tables: [String: Table] = [:]
        for (name, sourceColumns) in source.tables {
            guard let targetColumns = target.tables[name] else { continue }
            let known = Set(targetColumns.map(\.name))
            for column in sourceColumns
            where !known.contains(column) && StoreCopyCatalog.sqliteOnlyColumns["\(name).\(column)"] == nil {
                problems.append("column \(name).\(column) is in the SQLite file but not in PostgreSQL's schema")
            }
            let present = Set(sourceColumns)
            for column in targetColumns
            where !present.contains(column.name) && !column.generated
                && StoreCopyCatalog.postgresOnlyColumns["\(name).\(column.name)"] == nil
            {
                problems.append("column \(name).\(column.name) is in PostgreSQL's schema but not in the SQLite file")
            }
            tables[name] = Table(
                name: name, columns: targetColumns.filter { present.contains($0.name) && !$0.generated })
        }
        guard problems.isEmpty else {
            throw StoreCopy.Failure(
                "the two schemas differ where this tern does not know why: " + problems.joined(separator: "; ")
                    + ". Both are at this tern's newest version, so this is a bug to report (or the database holds "
                    + "tables that are not Tern's: copy into an empty database); nothing was written")
        }
        // Parents first (Kahn's order, by name among equals, so every run copies in the same order).
        var order: [Table] = []
        var pending = Set(tables.keys)
        while !pending.isEmpty {
            let ready = pending.filter { table in
                (target.parents[table] ?? []).allSatisfy { !pending.contains($0) || tables[$0] == nil }
            }.sorted()
            guard !ready.isEmpty else {
                throw StoreCopy.Failure(
                    "the foreign keys between \(pending.sorted().joined(separator: ", ")) form a cycle: "
                        + "no order copies them; nothing was written")
            }
            for table in ready {
                order.append(tables[table]!)
                pending.remove(table)
            }
        }
        self.tables = order
    }
}

/// A PostgreSQL column's kind of value, and how a SQLite value becomes one.
enum StoreCopyValue {
    case integer, boolean, text, bytes, real
    /// A type Tern's schema does not use today (`jsonb`, a date…): the value's text, for PostgreSQL to read.
    case other

    init(postgresType: String) {
        switch postgresType {
        case "int2", "int4", "int8": self = .integer
        case "bool": self = .boolean
        case "text", "varchar", "bpchar", "name": self = .text
        case "bytea": self = .bytes
        case "float4", "float8", "numeric": self = .real
        default: self = .other
        }
    }

    struct Mismatch: Error {
        let reason: String
    }

    /// `value` as this column takes it: booleans from SQLite's 0 and 1 (any other number is true,
    /// as Tern reads them on SQLite), integers from whole reals, bytes from text's UTF-8, text
    /// from bytes that are UTF-8. Anything else cannot be carried over faithfully and is refused.
    func converted(_ value: SQLiteValue) throws(Mismatch) -> SQLiteValue {
        switch (self, value) {
        case (_, .null): return .null
        case (.real, .real(let number)) where !number.isFinite:
            return .text(number.isNaN ? "NaN" : number > 0 ? "Infinity" : "-Infinity")
        case (.integer, .integer), (.real, .real), (.text, .text), (.bytes, .blob): return value
        case (.boolean, .integer(let number)): return .text(number != 0 ? "true" : "false")
        case (.boolean, .real(let number)): return .text(number != 0 ? "true" : "false")
        case (.boolean, .text(let text)): return .text(text)
        case (.integer, .real(let number)):
            guard number.rounded() == number, let whole = Int64(exactly: number) else {
                throw Mismatch(reason: "\(number) is not a whole number")
            }
            return .integer(whole)
        case (.integer, .text(let text)):
            guard let number = Int64(text) else { throw Mismatch(reason: "'\(text)' is not an integer") }
            return .integer(number)
        case (.real, .integer(let number)): return .real(Double(number))
        case (.real, .text(let text)):
            guard Double(text) != nil else { throw Mismatch(reason: "'\(text)' is not a number") }
            return .text(text)
        case (.text, .integer(let number)), (.other, .integer(let number)): return .text("\(number)")
        case (.text, .real(let number)), (.other, .real(let number)): return .text("\(number)")
        case (.text, .blob(let bytes)), (.other, .blob(let bytes)):
            guard let text = String(bytes: bytes, encoding: .utf8), !text.utf8.contains(0) else {
                throw Mismatch(reason: "a blob of \(bytes.count) bytes that is not UTF-8 text")
            }
            return .text(text)
        case (.other, .text): return value
        case (.bytes, .text(let text)): return .blob(Data(text.utf8))
        case (.bytes, .integer), (.bytes, .real): throw Mismatch(reason: "a number where bytes are kept")
        case (.integer, .blob), (.boolean, .blob), (.real, .blob):
            throw Mismatch(reason: "a blob where a number is kept")
        }
    }
}

/// The provider credentials a SQLite node keeps as files: `credentials/<project>/<provider>.json`.
struct StoreCopyCredentials {
    let directory: String
    /// Each usable credential: its project, provider name (`apns`, `fcm`, `hms`), JSON and when written.
    let found: [(projectId: Int64, provider: String, json: Data, updatedAt: Int64)]
    /// Files that are not a credential (an editor's backup, a write that never finished), left alone.
    let ignored: [String]

    /// Reads and checks every credential under `directory`; none when it does not exist. A credential
    /// file the server could not use stops the copy, naming it: the server would fail its sends too.
    static func read(directory: String) throws(StoreCopy.Failure) -> StoreCopyCredentials {
        let files = FileManager.default
        var found: [(Int64, String, Data, Int64)] = []
        var ignored: [String] = []
        let projects = ((try? files.contentsOfDirectory(atPath: directory)) ?? []).sorted()
        for project in projects {
            let folder = "\(directory)/\(project)"
            var isDirectory: ObjCBool = false
            guard let projectId = Int64(project), files.fileExists(atPath: folder, isDirectory: &isDirectory),
                isDirectory.boolValue
            else {
                ignored.append(folder)
                continue
            }
            for name in ((try? files.contentsOfDirectory(atPath: folder)) ?? []).sorted() {
                let file = "\(folder)/\(name)"
                guard name.hasSuffix(".json"), let kind = PushProvider(credentialName: String(name.dropLast(5))) else {
                    ignored.append(file)
                    continue
                }
                guard let data = files.contents(atPath: file) else {
                    throw StoreCopy.Failure("\(file) cannot be read: check its owner and mode (0600)")
                }
                let credential: ProviderCredential
                do {
                    credential = try ProviderCredential.decode(kind, from: data)
                } catch {
                    throw StoreCopy.Failure(
                        "\(file): \(error.reason); the server cannot send with it either: fix it or move it away, "
                            + "then copy again")
                }
                let modified = (try? files.attributesOfItem(atPath: file)[.modificationDate] as? Date) ?? Date()
                let json = (try? credential.encoded()) ?? data
                found.append((projectId, kind.credentialName, json, Int64(modified.timeIntervalSince1970 * 1000)))
            }
        }
        return StoreCopyCredentials(directory: directory, found: found, ignored: ignored)
    }
}
