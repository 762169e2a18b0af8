import Foundation
import Testing

/// A stored answer belongs to the caller that earned it: another caller reusing the key (and the
/// body) gets its own write and its own answer.
@Suite struct IdempotencyPerCallerTests {
    @Test func twoJWTSubjectsSharingAKeyEachGetTheirOwnProfile() async throws {
        let server = try await SecurityServer.start()
        defer { Task { await server.stop() } }
        let signer = try await server.hs256Signer(server.first)
        let body = subscription("shared-token", fields: ["plan": "gold"])
        let ada = try await server.sdk(
            "push/subscribe", body, jwt: try signer.token(email: "ada@example.com"), key: "same-key")
        let bob = try await server.sdk(
            "push/subscribe", body, jwt: try signer.token(email: "bob@example.com"), key: "same-key")
        #expect(ada.status == 200)
        #expect(bob.status == 200)
        #expect(bob.header("Idempotent-Replayed") == nil, "Bob was answered with Ada's stored answer")
        let adaId = (ada.json?["profile"] as? [String: Any])?["id"] as? String
        let bobId = (bob.json?["profile"] as? [String: Any])?["id"] as? String
        #expect(adaId != nil && bobId != nil && adaId != bobId, "\(ada.text) \(bob.text)")
        // Each caller's own repeat is still answered from its own stored answer.
        let again = try await server.sdk(
            "push/subscribe", body, jwt: try signer.token(email: "bob@example.com"), key: "same-key")
        #expect(again.header("Idempotent-Replayed") == "true")
        #expect(again.body == bob.body)
    }

    @Test func twoProjectsSharingAKeyEachGetTheirOwnWrite() async throws {
        let server = try await SecurityServer.start()
        defer { Task { await server.stop() } }
        let other = try await server.createTenant("other")
        let body = subscription("device-x")
        let first = try await server.sdk("push/subscribe", body, rToken: server.first.rToken, key: "k")
        let second = try await server.sdk("push/subscribe", body, rToken: other.rToken, key: "k")
        #expect(first.status == 200 && second.status == 200)
        #expect(second.header("Idempotent-Replayed") == nil)
        let status = try await server.sdk(
            "push/status", ["provider": "ios-apns", "subscription_id": "device-x", "mode": "current"],
            rToken: other.rToken)
        #expect(status.json?["profile"] is [String: Any], "the second project's write was skipped: \(status.text)")
    }
}
