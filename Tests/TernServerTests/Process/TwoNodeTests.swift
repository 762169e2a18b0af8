import Foundation
import TernTestSupport
import Testing

@testable import TernServer

/// Two real `tern serve` nodes on one PostgreSQL, sending through the APNs stand-in. One is SIGKILLed
/// mid-send and restarted: every device is recorded sent once, the peer sees each token at most
/// twice (only what the dead node had in flight goes out again), and nothing is lost.
@Suite(.serialized, .enabled(if: PostgresTestDatabase.url != nil)) struct TwoNodeTests {
    static let devices = 10_000

    static func token(_ number: Int) -> String { String(format: "%064x", number) }

    static func admin(_ server: ServerProcess) -> [String: String] {
        ["Authorization": "Bearer \(server.adminKey)", "Content-Type": "application/json"]
    }

    static func stats(_ server: ServerProcess, _ id: String) async throws -> [String: Any] {
        let answer = try await JSONHTTPClient().get(server.url("admin/messages/\(id)/stats"), headers: admin(server))
        return try JSONSerialization.jsonObject(with: answer.body) as? [String: Any] ?? [:]
    }

    /// Subscribes devices 1 to `count` (``token(_:)``), in eight lanes, the even ones through `first`
    /// and the odd ones through `second`.
    static func subscribe(_ count: Int, through first: ServerProcess, _ second: ServerProcess) async throws {
        let client = JSONHTTPClient()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for lane in 0..<8 {
                group.addTask {
                    for number in stride(from: lane + 1, through: count, by: 8) {
                        let node = number % 2 == 0 ? first : second
                        let answer = try await client.post(
                            node.url("push/subscribe"),
                            json: ["time": 1, "provider": "ios-apns", "subscription_id": Self.token(number)],
                            headers: ["X-Tern-RToken": node.rToken])
                        try #require(answer.status == 200, "\(answer.text)")
                    }
                }
            }
            try await group.waitForAll()
        }
    }

    @Test func oneNodeKilledMidSendLosesNothingAndSendsNothingTwiceToTheStats() async throws {
        let fixture = try await APNsFixture.start()
        defer { fixture.peer.stop() }
        let database = try PostgresTestDatabase.freshSchemaURL()
        let arguments =
            Self.nodeArguments(fixture, database) + ["--delivery-concurrency", "2", "--delivery-lease", "4"]
        let first = try await ServerProcess.start(arguments: arguments)
        defer { Task { await first.stop() } }
        let second = try await ServerProcess.start(arguments: arguments)
        defer { Task { await second.stop() } }
        #expect(second.projectId == first.projectId && second.rToken == first.rToken, "bootstrap happened once")

        // The credential is given to one node; the other reads it from the database.
        let client = JSONHTTPClient()
        try await fixture.configure(first)
        let listed = try await client.get(
            second.url("admin/projects/\(second.projectId)/credentials"), headers: Self.admin(second))
        #expect(listed.text.contains("apns"), "the other node lists it: \(listed.text)")
        // The subscriptions arrive through both nodes.
        try await Self.subscribe(Self.devices, through: first, second)

        let created = try await client.post(
            first.url("admin/messages"),
            json: ["title": "Hi", "body": "once", "audience": ["type": "resource", "resource_id": first.resourceId]],
            headers: Self.admin(first))
        try #require(created.status == 201, "\(created.text)")
        let id = try #require(
            (try JSONSerialization.jsonObject(with: created.body) as? [String: Any])?["id"] as? String)

        var before: [String: Any] = [:]
        for _ in 0..<6000 {
            before = try await Self.stats(second, id)
            if (before["sent"] as? Int ?? 0) >= Self.devices / 4 { break }
            try await Task.sleep(for: .milliseconds(10))
        }
        try #require((before["sent"] as? Int ?? 0) >= Self.devices / 4, "\(before)")
        await second.kill(signal: SIGKILL)
        try await second.restart()

        var after: [String: Any] = [:]
        for _ in 0..<1200 {
            after = try await Self.stats(first, id)
            if after["done"] as? Bool == true { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(after["done"] as? Bool == true, "\(after)")
        #expect(after["sent"] as? Int == Self.devices, "\(after)")
        #expect(after["failed"] as? Int == 0, "\(after)")
        #expect(try await Self.stats(second, id)["sent"] as? Int == Self.devices, "both nodes read the same stats")

        var accepted: [String: Int] = [:]
        var apnsIds: [String: Set<String>] = [:]
        for entry in try await fixture.peer.log() where entry["status"] as? Int == 200 {
            let token = entry["token"] as? String ?? ""
            accepted[token, default: 0] += 1
            apnsIds[token, default: []].insert((entry["headers"] as? [String: String])?["apns-id"] ?? "")
        }
        #expect(accepted.count == Self.devices, "every device got the push")
        #expect(accepted.values.allSatisfy { $0 <= 2 }, "only what the killed node had in flight went out again")
        #expect(apnsIds.values.allSatisfy { $0.count == 1 }, "a delivery sent again must carry its first apns-id")

        // The node that kept running claimed deliveries, and its /metrics says how long the claims took.
        let metrics = try await client.get(first.rootURL("/metrics")).text
        #expect(Self.sample(metrics, "tern_outbox_claimed_total") > 0, "\(metrics.suffix(600))")
        #expect(Self.sample(metrics, "tern_outbox_claim_seconds_count") > 0, "\(metrics.suffix(600))")
    }

    /// A message throttled to 180 a minute, sent by two nodes: each device gets it once, and the
    /// pushes reach the provider no faster than three a second from the message's making, whichever
    /// node claims them (the rate is in the deliveries' due times, not in one node's memory).
    @Test func aThrottledMessageKeepsItsRateAcrossTwoNodes() async throws {
        let fixture = try await APNsFixture.start()
        defer { fixture.peer.stop() }
        let arguments = [
            "--database", try PostgresTestDatabase.freshSchemaURL(), "--apns-production-url",
            fixture.peer.origin.absoluteString, "--provider-ca-file", fixture.peer.caFile,
        ]
        let first = try await ServerProcess.start(arguments: arguments)
        defer { Task { await first.stop() } }
        let second = try await ServerProcess.start(arguments: arguments)
        defer { Task { await second.stop() } }
        let client = JSONHTTPClient()
        try await fixture.configure(first)
        let devices = 9
        for number in 1...devices {
            let answer = try await client.post(
                first.url("push/subscribe"),
                json: ["time": 1, "provider": "ios-apns", "subscription_id": Self.token(number)],
                headers: ["X-Tern-RToken": first.rToken])
            try #require(answer.status == 200, "\(answer.text)")
        }
        let created = try await client.post(
            second.url("admin/messages"),
            json: [
                "title": "Drip", "throttle_per_minute": 180,
                "audience": ["type": "resource", "resource_id": first.resourceId],
            ], headers: Self.admin(second))
        try #require(created.status == 201, "\(created.text)")
        let message = try #require(try JSONSerialization.jsonObject(with: created.body) as? [String: Any])
        let id = try #require(message["id"] as? String)
        let madeAt = Double(try #require(message["created_at"] as? Int64)) / 1000

        var stats: [String: Any] = [:]
        for _ in 0..<300 {
            stats = try await Self.stats(first, id)
            if stats["done"] as? Bool == true { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(stats["done"] as? Bool == true && stats["sent"] as? Int == devices, "\(stats)")
        let arrivals = try await fixture.peer.log().filter { $0["status"] as? Int == 200 }
        #expect(Set(arrivals.compactMap { $0["token"] as? String }).count == devices)
        #expect(arrivals.count == devices, "each device once")
        let times = arrivals.compactMap { $0["at"] as? Double }.sorted()
        for (index, time) in times.enumerated() {
            // The third of each second's three is due at that second's start after the making.
            #expect(
                time >= madeAt + Double(index / 3) - 0.05, "push \(index) arrived \(time - madeAt) s after the making")
        }
        #expect((times.last ?? 0) - madeAt < 10, "sent within its schedule: \(times.map { $0 - madeAt })")
    }

    /// The value of the Prometheus sample `name` (without labels) in `metrics`; 0 when absent.
    /// A node on `database` sending to the fixture's APNs peer, 100 deliveries a batch.
    static func nodeArguments(_ fixture: APNsFixture, _ database: String) -> [String] {
        [
            "--database", database, "--database-pool", "4", "--apns-production-url",
            fixture.peer.origin.absoluteString, "--provider-ca-file", fixture.peer.caFile, "--delivery-batch", "100",
        ]
    }

    static func sample(_ metrics: String, _ name: String) -> Double {
        for line in metrics.split(separator: "\n") where line.hasPrefix(name + " ") {
            return Double(line.dropFirst(name.count + 1)) ?? 0
        }
        return 0
    }

    /// Both nodes post one webhook's events: each claims its own batches (`FOR UPDATE SKIP LOCKED`),
    /// so the receiver gets every device's `push.sent` once.
    @Test func twoNodesPostAWebhooksEventsEachOnce() async throws {
        let fixture = try await APNsFixture.start()
        defer { fixture.peer.stop() }
        let database = try PostgresTestDatabase.freshSchemaURL()
        let arguments = Self.nodeArguments(fixture, database)
        let first = try await ServerProcess.start(arguments: arguments)
        defer { Task { await first.stop() } }
        let second = try await ServerProcess.start(arguments: arguments)
        defer { Task { await second.stop() } }
        let client = JSONHTTPClient()
        try await fixture.configure(first)
        let receiver = try WebhookReceiver()
        let made = try await client.post(
            first.url("admin/projects/\(first.projectId)/webhooks"),
            json: ["url": receiver.url, "events": ["push.sent"]], headers: Self.admin(first))
        try #require(made.status == 201, "\(made.text)")
        // The other node reads the webhooks again within two seconds.
        try await Task.sleep(for: .milliseconds(2_500))
        let devices = 2_000
        try await Self.subscribe(devices, through: first, second)
        let created = try await client.post(
            second.url("admin/messages"),
            json: ["title": "Hi", "audience": ["type": "resource", "resource_id": first.resourceId]],
            headers: Self.admin(second))
        try #require(created.status == 201, "\(created.text)")

        func events() -> [String] { receiver.posts.flatMap { $0.events.compactMap { $0["token"] as? String } } }
        for _ in 0..<600 where Set(events()).count < devices { try await Task.sleep(for: .milliseconds(50)) }
        let tokens = events()
        #expect(Set(tokens).count == devices, "every device's push.sent: \(Set(tokens).count)")
        #expect(tokens.count == devices, "none posted twice: \(tokens.count) events")
    }
}
