import Foundation
import TernProtocol
import TernTestSupport
import Testing

@testable import TernServer

/// Group commit through the real `tern serve`: many concurrent subscribes share transactions, yet
/// every 2xx is durable at once (SIGKILL right after it), idempotency keys hold inside a batch and
/// across batches and restarts, and a bad request fails alone.
@Suite(.serialized) struct GroupCommitProcessTests {
    static let tokens = 500
    static let bad = 20
    /// SIGKILL after this many 2xx answers, so the kill lands mid-load.
    static let killAfter = 600

    actor Tally {
        private(set) var acknowledged = 0
        func acknowledge() -> Int {
            acknowledged += 1
            return acknowledged
        }
    }

    struct Outcome: Sendable {
        let token: String
        let status: Int?
    }

    static func body(token: String, categories: [String] = []) -> Data {
        var json: [String: Any] = [
            "time": 1, "provider": "ios-apns", "subscription_id": token, "sync": false,
            "profile_fields": ["applied": ["action": "incr", "value": 1]],
        ]
        if !categories.isEmpty { json["cats"] = categories.map { ["name": $0, "active": true] } }
        return try! JSONSerialization.data(withJSONObject: json, options: [.sortedKeys])
    }

    /// The store `tern serve` runs on: its SQLite file, or a PostgreSQL schema of the test's own.
    enum Backend: String, CaseIterable, CustomTestStringConvertible {
        case sqlite, postgresql

        static var available: [Backend] { PostgresTestDatabase.url == nil ? [.sqlite] : allCases }
        var testDescription: String { rawValue }

        /// `tern serve`'s arguments for it, and the URL of the PostgreSQL schema (nil for SQLite).
        func arguments() throws -> (arguments: [String], url: String?) {
            switch self {
            case .sqlite: return ([], nil)
            case .postgresql:
                let url = try PostgresTestDatabase.freshSchemaURL()
                return (["--database", url], url)
            }
        }
    }

    static func subscriptions(_ server: ServerProcess, database: String?, tokens: [String]) async throws
        -> [String: (Int, JSONValue?)]
    {
        let store: any Store =
            try database.map { try PostgresStore(url: $0, poolSize: 1) }
            ?? SQLiteStore(path: server.dataDirectory.path("data/tern.sqlite"))
        let resourceId = server.resourceId
        let rows = try await store.read { tx in
            try tokens.map { token -> (String, Int, JSONValue?) in
                let found = try tx.subscriptions(
                    resourceId: resourceId, channel: .push, provider: .apns, token: token)
                let fields = try found.first.map { try tx.profileFields(profileId: $0.profileId) }
                return (token, found.count, fields?["applied"])
            }
        }
        await store.close()
        return Dictionary(uniqueKeysWithValues: rows.map { ($0.0, ($0.1, $0.2)) })
    }

    /// On PostgreSQL the same holds with a write's key looked up together with its first read and
    /// its `BEGIN` sent with its first statement (`unlessAnswered`, `PostgresBatching`).
    @Test(arguments: Backend.available)
    func thousandConcurrentSubscribesHalfRepeatedEndWithOneRowEachAndSurviveSIGKILL(backend: Backend) async throws {
        let (arguments, database) = try backend.arguments()
        let server = try await ServerProcess.start(arguments: ["--write-batch-wait-ms", "5"] + arguments)
        defer { Task { await server.stop() } }
        let client = JSONHTTPClient(timeout: 20)
        let tally = Tally()
        let rToken = server.rToken
        let url = server.url("push/subscribe")

        // Each good token twice (same key, same body: a client retry); the bad ones name a category
        // the resource does not have, and are mixed among them.
        var requests: [(token: String, body: Data)] = []
        for index in 0..<Self.tokens {
            let token = "t\(index)"
            requests.append((token, Self.body(token: token)))
            requests.append((token, Self.body(token: token)))
        }
        for index in 0..<Self.bad {
            let token = "bad\(index)"
            requests.insert((token, Self.body(token: token, categories: ["no-such-category"])), at: index * 50 + 3)
        }
        let outcomes = await withTaskGroup(of: Outcome.self) { group in
            for request in requests {
                group.addTask {
                    let answer = try? await client.post(
                        url, body: request.body,
                        headers: [Wire.rTokenHeader: rToken, Wire.idempotencyKeyHeader: "key-\(request.token)"])
                    if let answer, (200..<300).contains(answer.status),
                        await tally.acknowledge() == Self.killAfter
                    {
                        await server.kill(signal: SIGKILL)
                    }
                    return Outcome(token: request.token, status: answer?.status)
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(await server.isRunning == false)
        let acknowledged = Set(outcomes.filter { ($0.status ?? 0) / 100 == 2 }.map(\.token))
        #expect(acknowledged.count >= Self.killAfter / 2)
        #expect(!acknowledged.contains { $0.hasPrefix("bad") })
        for outcome in outcomes where outcome.token.hasPrefix("bad") && outcome.status != nil {
            #expect(outcome.status == 400, "\(outcome.token) was answered \(outcome.status ?? 0)")
        }

        // Every 2xx is in the file the killed server left.
        let goodTokens = (0..<Self.tokens).map { "t\($0)" }
        let afterKill = try await Self.subscriptions(server, database: database, tokens: Array(acknowledged))
        for token in acknowledged {
            #expect(afterKill[token]?.0 == 1, "acknowledged \(token) has \(afterKill[token]?.0 ?? 0) rows")
            #expect(
                afterKill[token]?.1 == .int(1),
                "acknowledged \(token) applied \(String(describing: afterKill[token]?.1))")
        }

        // The client retries everything once more (a lost answer looks the same as no answer).
        try await server.restart()
        for token in goodTokens {
            let answer = try await client.post(
                url, body: Self.body(token: token),
                headers: [Wire.rTokenHeader: rToken, Wire.idempotencyKeyHeader: "key-\(token)"])
            #expect(answer.status == 200, "retry of \(token): \(answer.text)")
        }
        await server.kill(signal: SIGTERM)

        let final = try await Self.subscriptions(
            server, database: database, tokens: goodTokens + (0..<Self.bad).map { "bad\($0)" })
        for token in goodTokens {
            #expect(final[token]?.0 == 1, "\(token) has \(final[token]?.0 ?? 0) rows")
            #expect(final[token]?.1 == .int(1), "\(token) was applied \(String(describing: final[token]?.1)) times")
        }
        for index in 0..<Self.bad {
            #expect(final["bad\(index)"]?.0 == 0, "the bad request bad\(index) left a row")
        }
    }
}
