import Foundation
import TernSQLite
import TernTestSupport
import Testing

@testable import TernCore

@Suite("Two processes share one outbox, like an app and its extension", .serialized)
struct TwoProcessOutboxTests {
    /// An app and its extension starting together on a new install both make the SDK's database:
    /// switching the new file to WAL answered "database is locked" at once to one of them, whose
    /// SDK then never started (and `tern device` waited for it forever). Two hundred pairs of
    /// processes, each pair on a new directory and started by one shell at the same moment, all
    /// start (before the fix, a pair in sixty here failed, and 4 to 8 pairs in 30 started from
    /// separate shells).
    @Test func twoProcessesStartingOnANewDirectoryBothStart() async throws {
        let tern = try ServerProcess.binaryURL().path
        for round in 0..<200 {
            let data = try TemporaryDirectory(prefix: "tern-new")
            defer { data.remove() }
            let device =
                "\"$0\" device --data \"$1\" --api-url http://127.0.0.1:9/api/v1 --rtoken rt --quiet goals"
                + " --sids s --count 1 --wait 0"
            let pair = "\(device) --prefix a & a=$!; \(device) --prefix b & b=$!; wait $a && wait $b"
            let shell = try ChildProcess.run(
                "/bin/sh", ["-c", pair, tern, data.url.path], input: .null, output: .null, error: .null)
            #expect(await shell.wait() == 0, "round \(round)")
        }
    }

    @Test func twoProcessesWritingAtOnceLoseNothingAndTheServerGetsEachOnce() async throws {
        let data = try TemporaryDirectory(prefix: "tern-shared")
        defer { data.remove() }
        // Phase 1: nobody can send (port 9 refuses), both write 500 goals at once.
        let offline = ["--data", data.url.path, "--api-url", "http://127.0.0.1:9/api/v1", "--rtoken", "rt", "--quiet"]
        let writers = try ["a", "b"].map { prefix in
            try DeviceProcess.start(
                offline + ["goals", "--sids", "two-a,two-b", "--count", "500", "--prefix", prefix, "--wait", "0"])
        }
        for writer in writers { #expect(await writer.wait() == 0) }

        let directory = data.url.appendingPathComponent("group.tern.device")
        let database = try SQLiteDatabase(path: directory.appendingPathComponent("tern.sqlite").path)
        #expect(try database.queryFirst("PRAGMA integrity_check")?.string(0) == "ok")
        let store = try CoreStore(directory: directory)
        let rows = try await store.pendingRows()
        let names = rows.compactMap { row in
            (try? JSONSerialization.jsonObject(with: row.body) as? [String: Any])?["event_name"] as? String
        }
        let expected = Set((0..<500).flatMap { ["a-\($0)", "b-\($0)"] })
        #expect(names.count == 1000 && Set(names) == expected, "\(discrepancies(names, expected: expected))")
        #expect(Set(rows.map(\.idempotencyKey)).count == 1000)

        // Phase 2: both processes drain the same outbox to a real server at once.
        let server = try await ServerProcess.start()
        let admin = Admin(server: server)
        for sid in ["two-a", "two-b"] { try await admin.createPixel(sid) }
        let online = [
            "--data", data.url.path, "--api-url", server.apiURL.absoluteString, "--rtoken", server.rToken, "--quiet",
            "flush", "--wait", "60",
        ]
        let senders = try (0..<2).map { _ in try DeviceProcess.start(online) }
        for sender in senders { #expect(await sender.wait() == 0) }
        let sent = try await admin.allGoalNames(["two-a", "two-b"])
        #expect(sent.count == 1000 && Set(sent) == expected, "\(discrepancies(sent, expected: expected))")
        await server.stop()
    }
}
