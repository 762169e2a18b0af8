import Foundation
import TernProtocol
import TernTestSupport
import Testing

/// `tern serve` as a process: bootstrap, restarts, signals, logs.
@Suite(.serialized) struct ServeCommandTests {
    @Test func firstStartWritesBootstrapFilePrivatelyAndPrintsIt() async throws {
        let server = try await ServerProcess.start()
        defer { Task { await server.stop() } }
        let path = server.dataDirectory.path("data/bootstrap.json")
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        let directory = try FileManager.default.attributesOfItem(atPath: server.dataDirectory.path("data"))
        #expect((directory[.posixPermissions] as? Int) == 0o700)
        #expect(server.rToken.hasPrefix("rt_"))
        #expect(server.adminKey.hasPrefix("ak_"))
        #expect(server.apiURL.absoluteString == "http://127.0.0.1:\(server.port)/api/v1")
        #expect(server.output().contains(server.adminKey))
        #expect(FileManager.default.fileExists(atPath: server.dataDirectory.path("data/tern.sqlite-wal")))
    }

    @Test func restartReusesProjectResourceAndKeysAndKeepsData() async throws {
        let server = try await ServerProcess.start()
        defer { Task { await server.stop() } }
        let client = JSONHTTPClient()
        let body: [String: Any] = ["time": 1, "provider": "ios-apns", "subscription_id": "kept", "sync": true]
        let first = try await client.post(
            server.url("push/subscribe"), json: body, headers: [Wire.rTokenHeader: server.rToken])
        #expect(first.status == 200)
        let before = try Data(contentsOf: server.dataDirectory.url.appendingPathComponent("data/bootstrap.json"))
        try await server.restart()
        let after = try Data(contentsOf: server.dataDirectory.url.appendingPathComponent("data/bootstrap.json"))
        #expect(before == after)
        let status = try await client.post(
            server.url("push/status"), json: ["mode": "current", "provider": "ios-apns", "subscription_id": "kept"],
            headers: [Wire.rTokenHeader: server.rToken])
        #expect(status.status == 200)
        let profile = try #require(status.json?["profile"] as? [String: Any])
        #expect((profile["subscription"] as? [String: Any])?["subscription_id"] as? String == "kept")
    }

    @Test func sigtermStopsCleanlyWithExitZero() async throws {
        let server = try await ServerProcess.start()
        defer { server.dataDirectory.remove() }
        let status = await server.kill(signal: SIGTERM)
        #expect(status == 0)
        #expect(server.log().contains("\"msg\":\"stopped\""))
    }

    @Test func sigintStopsCleanlyWithExitZero() async throws {
        let server = try await ServerProcess.start()
        defer { server.dataDirectory.remove() }
        #expect(await server.kill(signal: SIGINT) == 0)
    }

    @Test func logsCarryRequestsButNoSecrets() async throws {
        let server = try await ServerProcess.start()
        defer { Task { await server.stop() } }
        let client = JSONHTTPClient()
        _ = try await client.post(
            server.url("push/subscribe"),
            json: ["time": 1, "provider": "ios-apns", "subscription_id": "secret-push-token"],
            headers: [Wire.rTokenHeader: server.rToken, Wire.idempotencyKeyHeader: "key-1"])
        _ = try await client.get(
            server.url("admin/projects"), headers: ["Authorization": "Bearer \(server.adminKey)"])
        _ = try await client.post(
            server.url("push/subscribe"), json: ["time": 1],
            headers: ["Authorization": "Bearer eyJhbGciOiJub25lIn0.e30."])
        await server.kill(signal: SIGTERM)
        let log = server.log()
        for secret in [server.rToken, server.adminKey, "secret-push-token", "eyJhbGciOiJub25lIn0"] {
            #expect(!log.contains(secret))
        }
        let lines = log.split(separator: "\n")
        let requests = lines.filter { $0.contains("\"msg\":\"request\"") }
        #expect(requests.count >= 3)
        for line in lines {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(object["ts"] is String)
            #expect(object["level"] is String)
        }
        let subscribe = try #require(requests.first { $0.contains("push/subscribe") })
        for field in ["route", "status", "duration_ms", "request_id", "method"] {
            #expect(subscribe.contains("\"\(field)\""))
        }
    }

    @Test func helpListsEveryOption() async throws {
        let (status, output, _) = try await TernCommand.run(["serve", "--help"])
        #expect(status == 0)
        for option in [
            "--host", "--port", "--data", "--threads", "--max-body-bytes", "--max-header-bytes",
            "--connection-timeout", "--log-level", "--bench-routes", "TERN_HOST", "https_proxy",
        ] {
            #expect(output.contains(option), "\(option) missing from --help")
        }
    }

    @Test func badOptionExitsWithAReason() async throws {
        let (status, _, output) = try await TernCommand.run(["serve", "--port", "seventy"])
        #expect(status == 2)
        #expect(output.contains("--port must be an integer"))
    }

    @Test func oversizedBodyGets413InTheEnvelope() async throws {
        let server = try await ServerProcess.start(arguments: ["--max-body-bytes", "2048"])
        defer { Task { await server.stop() } }
        let big = Data(
            ("{\"time\":1,\"provider\":\"ios-apns\",\"subscription_id\":\"" + String(repeating: "a", count: 4096)
                + "\"}").utf8)
        let answer = try await JSONHTTPClient().post(
            server.url("push/subscribe"), body: big, headers: [Wire.rTokenHeader: server.rToken])
        #expect(answer.status == 413)
        #expect(answer.json?["error"] as? Int == 413)
    }
}
