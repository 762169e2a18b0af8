import Foundation
import TernTestSupport
import Testing

@testable import TernServer

/// A real `tern serve` whose webhook receiver refuses its first post is SIGKILLed: after the
/// restart the same events, with the same ids, reach the receiver once it takes them, and none is
/// left waiting.
@Suite(.serialized) struct WebhookRestartTests {
    static func admin(_ server: ServerProcess) -> [String: String] {
        ["Authorization": "Bearer \(server.adminKey)", "Content-Type": "application/json"]
    }

    static func ids(_ posts: some Sequence<WebhookReceiver.Post>) -> Set<String> {
        Set(posts.flatMap { $0.events.compactMap { $0["id"] as? String } })
    }

    @Test func eventsWaitingForTheirReceiverSurviveSIGKILLAndArePostedOnceItTakesThem() async throws {
        let fixture = try await APNsFixture.start()
        defer { fixture.peer.stop() }
        let server = try await ServerProcess.start(arguments: [
            "--apns-production-url", fixture.peer.origin.absoluteString, "--provider-ca-file", fixture.peer.caFile,
        ])
        defer { Task { await server.stop() } }
        try await fixture.configure(server)
        let client = JSONHTTPClient()
        let receiver = try WebhookReceiver()
        receiver.answer(Array(repeating: 503, count: 1_000))
        let made = try await client.post(
            server.url("admin/projects/\(server.projectId)/webhooks"),
            json: ["url": receiver.url, "events": ["push.sent"]], headers: Self.admin(server))
        try #require(made.status == 201, "\(made.text)")
        for number in 1...5 {
            let answer = try await client.post(
                server.url("push/subscribe"),
                json: ["time": 1, "provider": "ios-apns", "subscription_id": String(format: "%064x", number)],
                headers: ["X-Tern-RToken": server.rToken])
            try #require(answer.status == 200)
        }
        let created = try await client.post(
            server.url("admin/messages"),
            json: ["title": "Hi", "audience": ["type": "resource", "resource_id": server.resourceId]],
            headers: Self.admin(server))
        try #require(created.status == 201, "\(created.text)")

        // The five push.sent events were refused once: they wait in the database.
        for _ in 0..<300 where Self.ids(receiver.posts).count < 5 { try await Task.sleep(for: .milliseconds(50)) }
        let refused = Self.ids(receiver.posts)
        try #require(refused.count == 5, "\(receiver.posts.count) posts")
        _ = await server.kill(signal: SIGKILL)

        receiver.answer([])
        let before = receiver.posts.count
        try await server.restart()
        // The retry comes 5 s after the refusal, from the restarted server.
        for _ in 0..<400 where Self.ids(receiver.posts.dropFirst(before)) != refused {
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(Self.ids(receiver.posts.dropFirst(before)) == refused, "the same events, by id")
        let listed = try await client.get(
            server.url("admin/projects/\(server.projectId)/webhooks"), headers: Self.admin(server))
        let hooks = try JSONSerialization.jsonObject(with: listed.body) as? [[String: Any]] ?? []
        #expect(hooks.first?["pending"] as? Int == 0 && hooks.first?["last_status"] as? Int == 200, "\(hooks)")
    }
}
