import Foundation
import TernCrypto
import TernTestSupport
import Testing

@testable import TernServer

/// A real `tern serve` sends through the real provider clients to the peers: credentials through
/// the admin API, a device subscribes, a message goes out, the peer receives the payload, and the
/// message's counts and the subscription's token reflect the provider's answers.
@Suite struct ProviderEndToEndTests {
    static func admin(_ server: ServerProcess) -> [String: String] {
        ["Authorization": "Bearer \(server.adminKey)", "Content-Type": "application/json"]
    }

    static func subscribe(_ server: ServerProcess, _ token: String, provider: String) async throws {
        let answer = try await JSONHTTPClient().post(
            server.url("push/subscribe"), json: ["time": 1, "provider": provider, "subscription_id": token],
            headers: ["X-Tern-RToken": server.rToken])
        try #require(answer.status == 200, "\(answer.text)")
    }

    /// Polls the message until the engine is done with it; its stats then.
    static func finished(_ server: ServerProcess, _ messageId: String) async throws -> [String: Any] {
        for _ in 0..<300 {
            let answer = try await JSONHTTPClient().get(
                server.url("admin/messages/\(messageId)/stats"), headers: admin(server))
            let stats = try JSONSerialization.jsonObject(with: answer.body) as? [String: Any] ?? [:]
            if stats["done"] as? Bool == true { return stats }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw PeerError("message \(messageId) did not finish")
    }

    @Test func apnsMessageReachesThePeerAndBadTokensAreCounted() async throws {
        let fixture = try await APNsFixture.start()
        defer { fixture.peer.stop() }
        let server = try await ServerProcess.start(arguments: [
            "--apns-production-url", fixture.peer.origin.absoluteString, "--provider-ca-file", fixture.peer.caFile,
        ])
        defer { Task { await server.stop() } }
        let client = JSONHTTPClient()
        try await fixture.configure(server)
        for number in 1...3 { try await Self.subscribe(server, APNsFixture.token(number), provider: "ios-apns") }
        try await fixture.peer.script(
            APNsFixture.token(3), [["status": 410, "reason": "Unregistered", "timestamp": 1_000]])

        let message = try await client.post(
            server.url("admin/messages"),
            json: [
                "title": "Sale", "body": "30% off", "collapse_id": "sale",
                "audience": ["type": "resource", "resource_id": server.resourceId],
            ], headers: Self.admin(server))
        try #require((200..<300).contains(message.status), "\(message.text)")
        let messageId = try #require(
            (try JSONSerialization.jsonObject(with: message.body) as? [String: Any])?["id"] as? String)
        let stats = try await Self.finished(server, messageId)
        #expect(stats["sent"] as? Int == 2, "\(stats)")
        #expect(stats["invalid_token"] as? Int == 1, "\(stats)")

        let received = try await fixture.peer.log().filter { $0["status"] as? Int == 200 }
        #expect(received.count == 2)
        for entry in received {
            let headers = entry["headers"] as? [String: String] ?? [:]
            #expect(headers["apns-topic"] == APNsFixture.topic)
            #expect(headers["apns-collapse-id"] == "sale")
            let tern = (entry["payload"] as? [String: Any])?["tern"] as? [String: Any]
            #expect((tern?["message_id"] as? String)?.hasPrefix(messageId) == true)
        }
        let metrics = try await client.get(server.rootURL("/metrics"))
        #expect(metrics.text.contains("ios-apns"))
        #expect(!server.log().contains(fixture.credential.privateKey.split(separator: "\n")[1]))
    }

    @Test func withoutCredentialsDeliveriesFailWithTheReasonToFixIt() async throws {
        let server = try await ServerProcess.start()
        defer { Task { await server.stop() } }
        try await Self.subscribe(server, "fcm-token-1", provider: "ios-firebase")
        let message = try await JSONHTTPClient().post(
            server.url("admin/messages"),
            json: ["title": "Hi", "audience": ["type": "resource", "resource_id": server.resourceId]],
            headers: Self.admin(server))
        let messageId = try #require(
            (try JSONSerialization.jsonObject(with: message.body) as? [String: Any])?["id"] as? String)
        let stats = try await Self.finished(server, messageId)
        let reasons = (stats["failed_by_reason"] as? [String: Int])?.keys.joined() ?? "\(stats)"
        #expect(reasons.contains("has no FCM credentials"), "\(stats)")
    }
}
