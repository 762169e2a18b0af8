import Foundation
import TernSQLite
import TernTestSupport
import Testing

@testable import TernServer

/// What only the SQLite backend promises: its file, its schema version, its persistence.
@Suite struct SQLiteStoreTests {
    @Test func reopeningKeepsDataAndTheNewestSchemaVersion() async throws {
        let directory = try TemporaryDirectory(prefix: "sqlite-store")
        defer { directory.remove() }
        let path = directory.path("tern.sqlite")
        let first = try SQLiteStore(path: path)
        let version = try await first.schemaVersion()
        #expect(version >= 1)
        _ = try await first.write { try $0.createProject(name: "kept", audience: nil, now: 1) }
        await first.close()

        let second = try SQLiteStore(path: path)
        #expect(try await second.schemaVersion() == version)
        #expect(try await second.read { try $0.projects() }.map(\.name) == ["kept"])
        await second.close()
    }

    @Test func fileIsInWriteAheadLogMode() async throws {
        let directory = try TemporaryDirectory(prefix: "sqlite-store")
        defer { directory.remove() }
        let store = try SQLiteStore(path: directory.path("tern.sqlite"))
        _ = try await store.write { try $0.createProject(name: "x", audience: nil, now: 1) }
        #expect(FileManager.default.fileExists(atPath: directory.path("tern.sqlite-wal")))
        await store.close()
    }

    /// Savepoints' page copies stay in memory (temp_store 2): as a temporary file they were half of
    /// a subscribe's insert, in pwrite calls.
    @Test func savepointJournalsAreKeptInMemory() async throws {
        let directory = try TemporaryDirectory(prefix: "sqlite-store")
        defer { directory.remove() }
        let store = try SQLiteStore(path: directory.path("tern.sqlite"))
        let tempStore = try await store.write { tx in
            try (tx as? SQLiteTransaction)?.database.queryFirst("PRAGMA temp_store")?.int(0)
        }
        #expect(tempStore == 2)
        await store.close()
    }

    /// The checkpoint thread follows a growing log closely and backs off once it stops.
    @Test func theCheckpointThreadKeepsCloseWhileTheLogGrowsAndBacksOffWhenItStops() {
        let pace = WALCheckpointer.Pace(busy: .milliseconds(5), idle: .milliseconds(250))
        #expect(pace.wait(after: .milliseconds(250), logChanged: true) == .milliseconds(5))
        let backingOff = (0..<8).reduce(into: [Duration.milliseconds(5)]) { waits, _ in
            waits.append(pace.wait(after: waits.last!, logChanged: false))
        }
        #expect(
            backingOff.map { $0.components.seconds * 1000 + $0.components.attoseconds / 1_000_000_000_000_000 } == [
                5, 10, 20, 40, 80, 160, 250, 250, 250,
            ])
    }

    /// A writer on a new file in `directory` whose own checkpoint is off (only `WALCheckpointer`
    /// copies its log), with an empty table `t` for ``insertRow(_:with:)``.
    static func writerWithoutItsOwnCheckpoint(
        in directory: TemporaryDirectory
    ) throws -> (path: String, writer: SQLiteDatabase) {
        let path = directory.path("tern.sqlite")
        let writer = try SQLiteDatabase(path: path)
        try writer.execute("PRAGMA wal_autocheckpoint = 0")
        try writer.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)")
        return (path, writer)
    }

    /// One row of about 500 bytes into `t`, committed alone: a frame or more in the log each.
    static func insertRow(_ index: Int, with writer: SQLiteDatabase) throws {
        try writer.run("INSERT INTO t (v) VALUES (?)", [String(repeating: "x", count: 500) + "\(index)"])
    }

    /// While the writer's own checkpoint is off, the thread alone copies what a write added to the log
    /// into the file: the WAL index's checkpoint record (`nBackfill`, at byte 96 of the `-shm` file)
    /// reaches the log's last frame (`mxFrame`, at byte 16).
    @Test func theCheckpointThreadCopiesTheLogIntoTheFile() async throws {
        let directory = try TemporaryDirectory(prefix: "sqlite-checkpoint")
        defer { directory.remove() }
        let (path, writer) = try Self.writerWithoutItsOwnCheckpoint(in: directory)
        let checkpointer = try WALCheckpointer(path: path)
        defer { checkpointer.stop() }
        for index in 0..<200 {
            try Self.insertRow(index, with: writer)
        }
        func frames() throws -> (last: UInt32, copied: UInt32) {
            let index = try Data(contentsOf: URL(fileURLWithPath: path + "-shm"))
            func word(_ offset: Int) -> UInt32 {
                index[offset..<offset + 4].withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) }
            }
            return (word(16), word(96))
        }
        let deadline = ContinuousClock.now + .seconds(20)
        while try frames().copied < frames().last, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        let seen = try frames()
        #expect(seen.last > 0 && seen.copied == seen.last, "\(seen)")
    }

    /// The thread syncs the database file after passes that copied frames (so the writer's own
    /// checkpoint never finds hundreds of milliseconds of copies to sync), at most once per
    /// `databaseSync`, and not again until a pass copied more.
    @Test func theCheckpointThreadSyncsTheFileAfterPassesThatCopiedFrames() {
        let pace = WALCheckpointer.Pace(
            busy: .milliseconds(5), idle: .milliseconds(250), databaseSync: .milliseconds(25))
        #expect(pace.syncDatabase(copied: 120, copiedAtLastSync: 40, sinceLastSync: .milliseconds(25)))
        #expect(!pace.syncDatabase(copied: 120, copiedAtLastSync: 40, sinceLastSync: .milliseconds(24)))
        #expect(!pace.syncDatabase(copied: 120, copiedAtLastSync: 120, sinceLastSync: .seconds(1)))
        #expect(!pace.syncDatabase(copied: 0, copiedAtLastSync: 40, sinceLastSync: .seconds(1)))
        // The log started over: fewer frames copied than at the last sync, still new copies.
        #expect(pace.syncDatabase(copied: 8, copiedAtLastSync: 40, sinceLastSync: .seconds(1)))
    }

    /// While a writer keeps the log growing (its own checkpoint off), the thread's passes are
    /// followed by syncs of the database file, through SQLite's own file handle.
    @Test func theCheckpointThreadSyncsTheFileWhileTheLogGrows() throws {
        let directory = try TemporaryDirectory(prefix: "sqlite-checkpoint-sync")
        defer { directory.remove() }
        let (path, writer) = try Self.writerWithoutItsOwnCheckpoint(in: directory)
        let checkpointer = try WALCheckpointer(
            path: path, pace: .init(busy: .milliseconds(2), idle: .milliseconds(250), databaseSync: .milliseconds(5)))
        defer { checkpointer.stop() }
        let deadline = ContinuousClock.now + .seconds(20)
        var index = 0
        while checkpointer.databaseSyncs < 3, ContinuousClock.now < deadline {
            try Self.insertRow(index, with: writer)
            index += 1
            if index % 50 == 0 { usleep(1_000) }
        }
        #expect(checkpointer.databaseSyncs >= 3, "\(index) inserts")
    }

    /// Reads have a connection of their own: one runs while a write holds the writer (and does not
    /// see that write before it commits), and the next read sees the write once it was answered.
    @Test func aReadRunsWhileAWriteHoldsTheWriterAndSeesItOnceCommitted() async throws {
        let directory = try TemporaryDirectory(prefix: "sqlite-store")
        defer { directory.remove() }
        let store = try SQLiteStore(path: directory.path("tern.sqlite"))
        let started = DispatchSemaphore(value: 0)
        let readDone = DispatchSemaphore(value: 0)
        let writing = Task {
            try await store.write { tx -> Bool in
                _ = try tx.createProject(name: "held", audience: nil, now: 1)
                started.signal()
                // Through the writer's actor, the read below would wait for this very write.
                return readDone.wait(timeout: .now() + 10) == .success
            }
        }
        try await offThePool { started.wait() }
        let during = try await store.read { try $0.projects().map(\.name) }
        readDone.signal()
        #expect(try await writing.value, "the read waited for the write in progress")
        #expect(!during.contains("held"))
        #expect(try await store.read { try $0.projects().map(\.name) }.contains("held"))
        await store.close()
        await #expect(throws: StoreError.self) { try await store.read { try $0.projects() } }
    }

    @Test func unopenablePathSaysWhichFile() throws {
        #expect {
            _ = try SQLiteStore(path: "/nonexistent-dir/tern.sqlite")
        } throws: { error in
            "\(error)".contains("/nonexistent-dir/tern.sqlite")
        }
    }
}
