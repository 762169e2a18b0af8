import Foundation
import TernSQLite
import TernTestSupport
import Testing

@Suite("The identity journal survives SIGKILLs of the simulated device", .serialized)
struct IdentityJournalCrashTests {
    static let token = "identity-crash-token-9a8b"

    /// The journal's rows in the device's SDK database (nil before the database exists).
    static func journalRows(_ data: TemporaryDirectory) throws -> Int64? {
        let files = (FileManager.default.enumerator(atPath: data.url.path)?.allObjects as? [String] ?? [])
            .filter { $0.hasSuffix("tern.sqlite") }
        guard let file = files.first else { return nil }
        let db = try SQLiteDatabase(path: data.url.appendingPathComponent(file).path)
        return try? db.queryFirst("SELECT COUNT(*) FROM identity_journal")?.int(0)
    }

    @Test func aLoginQueuedBeforeASIGKILLEndsBoundExactlyOnce() async throws {
        let server = try await ServerProcess.start()
        let data = try TemporaryDirectory(prefix: "tern-device-identity")
        defer { data.remove() }
        let common = ["--data", data.url.path, "--rtoken", server.rToken, "--quiet"]
        let online = common + ["--api-url", server.apiURL.absoluteString]
        #expect(
            try await DeviceProcess.run(online + ["set-token", "--provider", "ios-apns", "--token", Self.token]).status
                == 0)
        #expect(try await DeviceProcess.run(online + ["subscribe"]).status == 0)

        // Queued while the server cannot be reached (nothing listens on port 9), then killed: the
        // login is on disk and was never confirmed.
        let offline = try DeviceProcess.start(
            common + ["--api-url", "http://127.0.0.1:9/api/v1", "--wait", "60", "identity-login", "ada"])
        var queued: Int64 = 0
        for _ in 0..<100 where queued == 0 {
            try await Task.sleep(nanoseconds: 50_000_000)
            queued = ((try? Self.journalRows(data)) ?? nil) ?? 0
        }
        offline.kill()
        #expect(await offline.wait() == SIGKILL)
        #expect(queued == 1, "the login was queued before the kill")
        #expect(try Self.journalRows(data) == 1, "the journal survived the kill")

        // Runs against the server, killed at random moments: some before sending, some between the
        // server applying the login and the device recording its confirmation.
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<6 {
            let device = try DeviceProcess.start(online + ["--wait", "60", "flush"])
            try await Task.sleep(nanoseconds: UInt64.random(in: 20_000_000...400_000_000, using: &generator))
            device.kill()
            _ = await device.wait()
        }
        let last = try await DeviceProcess.run(online + ["--wait", "60", "flush"])
        #expect(last.status == 0)
        #expect(try Self.journalRows(data) == 0)

        let state = try await DeviceProcess.run(online + ["identity-state"])
        let line = state.output.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }.first { $0["external_id"] != nil }
        #expect(line?["external_id"] as? String == "ada", "\(state.output)")
        #expect((line?["pending"] as? [Any])?.isEmpty == true)

        let answer = try await JSONHTTPClient().get(
            URL(
                string: server.rootURL("/api/v1/admin/resources/\(server.resourceId)/identity").absoluteString
                    + "?provider=ios-apns&subscription_id=\(Self.token)")!,
            headers: ["Authorization": "Bearer \(server.adminKey)"])
        #expect(answer.status == 200, "\(answer.text)")
        let binding = answer.json?["binding"] as? [String: Any]
        #expect(binding?["external_id"] as? String == "ada")
        #expect(answer.json?["operations"] as? Int == 1 && binding?["version"] as? Int == 1, "bound exactly once")
        await server.stop()
    }
}
