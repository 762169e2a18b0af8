import Foundation
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
        let tempStore = try await store.read { tx in
            try (tx as? SQLiteTransaction)?.database.queryFirst("PRAGMA temp_store")?.int(0)
        }
        #expect(tempStore == 2)
        await store.close()
    }

    @Test func unopenablePathSaysWhichFile() throws {
        #expect {
            _ = try SQLiteStore(path: "/nonexistent-dir/tern.sqlite")
        } throws: { error in
            "\(error)".contains("/nonexistent-dir/tern.sqlite")
        }
    }
}
