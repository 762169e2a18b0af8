import Foundation
import TernTestSupport
import Testing

@testable import TernServer

/// A PostgreSQL cluster of the test's own (scripts/postgres.sh), so it can be restarted without
/// disturbing the other tests' database.
struct OwnPostgresCluster {
    let directory: TemporaryDirectory
    let url: String

    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("scripts/postgres.sh").path

    /// Makes and starts the cluster (initdb takes seconds) off the cooperative threads.
    static func start() async throws -> OwnPostgresCluster {
        let directory = try TemporaryDirectory(prefix: "tern-pg")
        try await offThePool { try run(["start", directory.path("cluster")]) }
        let port = try String(contentsOfFile: directory.path("cluster/port"), encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        return OwnPostgresCluster(directory: directory, url: "postgresql://tern:tern@127.0.0.1:\(port)/tern_test")
    }

    /// Stops the server (the cluster stays), off the cooperative threads.
    func halt() async throws {
        let path = directory.path("cluster")
        try await offThePool { try Self.run(["halt", path]) }
    }

    /// Starts it again on the same port.
    func resume() async throws {
        let path = directory.path("cluster")
        try await offThePool { try Self.run(["resume", path]) }
    }

    func stop() {
        try? Self.run(["stop", directory.path("cluster")])
        directory.remove()
    }

    /// Runs the script with its output discarded: the server it starts keeps inherited descriptors
    /// open, so a pipe would never reach its end.
    static func run(_ arguments: [String]) throws {
        let process = try ChildProcess.run("/bin/bash", [script] + arguments, output: .null)
        let status = process.waitUntilExit()
        guard status == 0 else {
            throw PostgresClusterFailed(description: "scripts/postgres.sh \(arguments[0]) exited \(status)")
        }
    }
}

struct PostgresClusterFailed: Error, CustomStringConvertible {
    let description: String
}

/// The database goes away under load and comes back: requests meanwhile fail with 503 and a reason,
/// the node reconnects by itself, and every request that was answered 2xx is in the database.
@Suite(.serialized, .enabled(if: PostgresTestDatabase.url != nil)) struct DatabaseRestartTests {
    @Test func everyAcknowledgedWriteSurvivesADatabaseRestartAndTheNodeReconnects() async throws {
        let cluster = try await OwnPostgresCluster.start()
        defer { cluster.stop() }
        let server = try await ServerProcess.start(arguments: ["--database", cluster.url, "--database-pool", "4"])
        defer { Task { await server.stop() } }
        let client = JSONHTTPClient()
        let health = try await client.get(server.rootURL("/healthz"))
        #expect(health.text.contains(#""store":"postgresql""#), "\(health.text)")

        actor Tally {
            var acknowledged: [String] = []
            var refused: [Int: Int] = [:]
            var reasons: Set<String> = []
            func add(_ token: String, _ status: Int, _ text: String) {
                if (200..<300).contains(status) {
                    acknowledged.append(token)
                } else {
                    refused[status, default: 0] += 1
                    reasons.insert(text)
                }
            }
        }
        let tally = Tally()
        let load = Task {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for lane in 0..<4 {
                    group.addTask {
                        for number in 0..<600 {
                            let token = String(format: "%032x%032x", lane, number)
                            let answer = try await client.post(
                                server.url("push/subscribe"),
                                json: ["time": 1, "provider": "ios-apns", "subscription_id": token],
                                headers: ["X-Tern-RToken": server.rToken])
                            await tally.add(token, answer.status, answer.text)
                            try await Task.sleep(for: .milliseconds(5))
                        }
                    }
                }
                try await group.waitForAll()
            }
        }
        while await tally.acknowledged.count < 200 { try await Task.sleep(for: .milliseconds(20)) }
        try await cluster.halt()
        // While it is away: 503 with a reason, for writes and for the health check.
        let away = try await client.post(
            server.url("push/subscribe"),
            json: ["time": 1, "provider": "ios-apns", "subscription_id": String(repeating: "cd", count: 32)],
            headers: ["X-Tern-RToken": server.rToken])
        #expect(away.status == 503, "\(away.text)")
        #expect(away.text.contains("retry"), "\(away.text)")
        #expect(try await client.get(server.rootURL("/healthz")).status == 503)
        try await Task.sleep(for: .milliseconds(500))
        try await cluster.resume()
        try await load.value

        let refused = await tally.refused
        #expect(Set(refused.keys).isSubset(of: [503]), "only 503s while the database was away: \(refused)")
        for reason in await tally.reasons { #expect(reason.contains("retry"), "\(reason)") }
        // The node came back by itself: new requests are answered.
        let after = try await client.post(
            server.url("push/subscribe"),
            json: ["time": 1, "provider": "ios-apns", "subscription_id": String(repeating: "ab", count: 32)],
            headers: ["X-Tern-RToken": server.rToken])
        #expect(after.status == 200, "\(after.text)")
        #expect(try await client.get(server.rootURL("/healthz")).status == 200)
        let metrics = try await client.get(server.rootURL("/metrics")).text
        #expect(metrics.contains("tern_db_pool_connections{state=\"in_use\"}"))

        let connection = try PostgresConnection(url: cluster.url)
        let stored = Set(try connection.query("SELECT token FROM subscriptions").compactMap { $0.string(0) })
        let acknowledged = await tally.acknowledged
        let lost = acknowledged.filter { !stored.contains($0) }
        #expect(lost.isEmpty, "\(lost.count) acknowledged subscriptions are missing")
        #expect(acknowledged.count > 200)
    }
}
