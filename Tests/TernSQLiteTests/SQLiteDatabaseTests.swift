import Foundation
import Testing

@testable import TernSQLite

/// Each test gets a fresh directory, removed when the test's instance goes.
@Suite final class SQLiteDatabaseTests {
    let directory: URL = {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("tern-sqlite-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }()

    deinit {
        try? FileManager.default.removeItem(at: directory)
    }

    @Test func opensInWALModeAndRoundTripsEveryValueKind() throws {
        let db = try SQLiteDatabase(path: directory.appendingPathComponent("a.sqlite").path)
        #expect(try db.queryFirst("PRAGMA journal_mode")?.string(0) == "wal")
        try db.execute("CREATE TABLE t (i INTEGER, r REAL, s TEXT, b BLOB, n TEXT)")
        try db.run("INSERT INTO t VALUES (?, ?, ?, ?, ?)", [42, 1.5, "héllo", Data([0, 1, 2]), String?.none])
        let row = try #require(try db.queryFirst("SELECT i, r, s, b, n FROM t"))
        #expect(row.int(0) == 42)
        #expect(row.double(1) == 1.5)
        #expect(row.string(2) == "héllo")
        #expect(row.data(3) == Data([0, 1, 2]))
        #expect(row.values[4] == .null)
    }

    @Test func textIsBoundByItsBytesShortLongEmptyAndNonASCII() throws {
        let db = try SQLiteDatabase(path: directory.appendingPathComponent("text.sqlite").path)
        try db.execute("CREATE TABLE t (k INTEGER, s TEXT)")
        let texts = ["", "apns", "é", String(repeating: "a1", count: 64), "ünïcødé \u{1F600}", "a\u{0}b"]
        for (key, text) in texts.enumerated() { try db.run("INSERT INTO t VALUES (?, ?)", [key, text]) }
        let rows = try db.query("SELECT k, s, typeof(s), length(CAST(s AS BLOB)) FROM t ORDER BY k")
        #expect(rows.count == texts.count)
        for row in rows {
            let text = texts[Int(row.int(0) ?? -1)]
            // Empty text stays text (not NULL), and every byte is bound, a NUL's too.
            #expect(row.string(2) == "text")
            #expect(row.int(3) == Int64(text.utf8.count))
            if !text.contains("\u{0}") { #expect(row.string(1) == text) }
        }
        // A bound text compares equal to the same literal.
        #expect(try db.queryFirst("SELECT count(*) FROM t WHERE s = ?", ["apns"])?.int(0) == 1)
    }

    @Test func transactionRollsBackWhenTheBodyThrows() throws {
        struct Boom: Error {}
        let db = try SQLiteDatabase(path: directory.appendingPathComponent("b.sqlite").path)
        try db.execute("CREATE TABLE t (v INTEGER)")
        #expect(throws: Boom.self) {
            try db.transaction {
                try db.run("INSERT INTO t VALUES (1)")
                throw Boom()
            }
        }
        #expect(try db.queryFirst("SELECT count(*) FROM t")?.int(0) == 0)
    }

    @Test func migrationsRunOnceAndRecordTheVersion() throws {
        let path = directory.appendingPathComponent("c.sqlite").path
        let migrations = ["CREATE TABLE a (v INTEGER)", "ALTER TABLE a ADD COLUMN w TEXT"]
        try SQLiteDatabase(path: path).migrate(migrations)
        let db = try SQLiteDatabase(path: path)
        try db.migrate(migrations)
        #expect(try db.userVersion == 2)
        try db.run("INSERT INTO a (v, w) VALUES (1, 'x')")
    }

    /// A kept statement's values are bound anew on each call, so nothing of a call's values, a
    /// NULL's place included, is left over from the call before.
    @Test func aKeptStatementTakesEachCallsValuesAndNoneOfThePreviousOnes() throws {
        let db = try SQLiteDatabase(path: directory.appendingPathComponent("kept.sqlite").path)
        try db.execute("CREATE TABLE t (k INTEGER, s TEXT, b BLOB)")
        let insert = "INSERT INTO t VALUES (?, ?, ?)"
        try db.run(insert, [1, "first", Data([1])])
        try db.run(insert, [2, String?.none, Data?.none])
        try db.run(insert, [3, "third", Data([3])])
        let rows = try db.query("SELECT k, s, b FROM t ORDER BY k")
        #expect(
            rows.map { $0.values } == [
                [.integer(1), .text("first"), .blob(Data([1]))],
                [.integer(2), .null, .null],
                [.integer(3), .text("third"), .blob(Data([3]))],
            ])
    }

    /// The database file of a connection syncs through SQLite's own handle; an in-memory database
    /// has no file, and says so.
    @Test func syncingTheDatabaseFileWorksOnAFileAndFailsWithoutOne() throws {
        let db = try SQLiteDatabase(path: directory.appendingPathComponent("sync.sqlite").path)
        try db.execute("CREATE TABLE t (v INTEGER)")
        try db.run("INSERT INTO t VALUES (1)")
        try db.syncDatabaseFile()
        let memory = try SQLiteDatabase(path: ":memory:")
        #expect(throws: SQLiteError.self) { try memory.syncDatabaseFile() }
    }

    @Test func wrongParameterCountIsAnError() throws {
        let db = try SQLiteDatabase(path: directory.appendingPathComponent("d.sqlite").path)
        try db.execute("CREATE TABLE t (v INTEGER)")
        #expect(throws: SQLiteError.self) { try db.run("INSERT INTO t VALUES (?)", []) }
    }
}
