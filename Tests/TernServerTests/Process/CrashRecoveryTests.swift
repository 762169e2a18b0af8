import Foundation
import TernProtocol
import TernServer
import TernTestSupport
import Testing

/// SIGKILL under write load, then restart: every 2xx is in the store, and client retries (same
/// idempotency key, same body) are not applied twice.
@Suite(.serialized) struct CrashRecoveryTests {
    static let writers = 8
    static let requestsPerWriter = 60
    /// Kill after this many 2xx answers, so the kill lands mid-load.
    static let killAfter = 150

    final class Tally: Sendable {
        let acknowledged = Counter()
    }

    actor Counter {
        private(set) var value = 0
        func increment() -> Int {
            value += 1
            return value
        }
    }

    struct Outcome: Sendable {
        let token: String
        let acknowledged: Bool
    }

    static func body(token: String) -> Data {
        let json: [String: Any] = [
            "time": 1, "provider": "ios-apns", "subscription_id": token, "sync": false,
            "profile_fields": ["applied": ["action": "incr", "value": 1]],
        ]
        return try! JSONSerialization.data(withJSONObject: json, options: [.sortedKeys])
    }

    static func headers(_ server: ServerProcess, token: String) -> [String: String] {
        [Wire.rTokenHeader: server.rToken, Wire.idempotencyKeyHeader: "key-\(token)"]
    }

    @Test func everyAcknowledgedWriteSurvivesSIGKILLAndRetriesApplyOnce() async throws {
        let server = try await ServerProcess.start()
        defer { Task { await server.stop() } }
        let client = JSONHTTPClient(timeout: 10)
        let tally = Tally()

        let outcomes = await withTaskGroup(of: [Outcome].self) { group in
            for writer in 0..<Self.writers {
                group.addTask {
                    var outcomes: [Outcome] = []
                    for index in 0..<Self.requestsPerWriter {
                        let token = "w\(writer)-r\(index)"
                        let answer = try? await client.post(
                            server.url("push/subscribe"), body: Self.body(token: token),
                            headers: Self.headers(server, token: token))
                        let acknowledged = answer.map { (200..<300).contains($0.status) } ?? false
                        outcomes.append(Outcome(token: token, acknowledged: acknowledged))
                        if acknowledged, await tally.acknowledged.increment() == Self.killAfter {
                            await server.kill(signal: SIGKILL)
                        }
                    }
                    return outcomes
                }
            }
            return await group.reduce(into: []) { $0 += $1 }
        }
        let acknowledged = outcomes.filter(\.acknowledged)
        let unacknowledged = outcomes.filter { !$0.acknowledged }
        #expect(acknowledged.count >= Self.killAfter)
        #expect(!unacknowledged.isEmpty, "the kill landed after the load; nothing to retry")

        try await server.restart()

        // The client retries what was not acknowledged, and (as a lost answer would make it) some that were.
        for outcome in unacknowledged + acknowledged.prefix(40) {
            let answer = try await client.post(
                server.url("push/subscribe"), body: Self.body(token: outcome.token),
                headers: Self.headers(server, token: outcome.token))
            #expect(answer.status == 200, "retry of \(outcome.token): \(answer.text)")
        }
        await server.kill(signal: SIGTERM)

        let store = try SQLiteStore(path: server.dataDirectory.path("data/tern.sqlite"))
        let resourceId = server.resourceId
        let tokens = outcomes.map(\.token)
        let applied = try await store.read { tx in
            try tokens.map { token -> (String, Int, JSONValue?) in
                let subscriptions = try tx.subscriptions(
                    resourceId: resourceId, channel: .push, provider: .apns, token: token)
                let fields = try subscriptions.first.map { try tx.profileFields(profileId: $0.profileId) }
                return (token, subscriptions.count, fields?["applied"])
            }
        }
        await store.close()
        for (token, count, value) in applied {
            #expect(count == 1, "\(token) has \(count) subscriptions")
            #expect(value == .int(1), "\(token) was applied \(String(describing: value)) times")
        }
    }
}
