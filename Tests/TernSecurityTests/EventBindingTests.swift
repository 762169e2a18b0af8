import Foundation
import Testing

/// `event/push` counts a delivery or open only for a delivery that exists, was sent to the
/// caller's resource (or its JWT's profile), and only once.
@Suite struct EventBindingTests {
    @Test func anotherProjectsRTokenCannotCountEventsOnAMessage() async throws {
        let server = try await SecurityServer.start()
        defer { Task { await server.stop() } }
        let projectA = server.first
        let projectB = try await server.createTenant("b")
        for device in ["a-1", "a-2", "a-3"] {
            let reply = try await server.sdk("push/subscribe", subscription(device), rToken: projectA.rToken)
            try #require(reply.status == 200, "\(reply.text)")
        }
        let created = try await server.admin(
            "POST", "/messages",
            json: [
                "title": "Hi", "body": "Hello", "audience": ["type": "resource", "resource_id": projectA.resourceId],
            ])
        try #require(created.status == 201, "\(created.text)")
        let messageId = try #require(created.json?["id"] as? String)
        var deliveryIds: [Int] = []
        for _ in 0..<200 where deliveryIds.count < 3 {
            let rows = try await server.admin("GET", "/messages/\(messageId)/deliveries?limit=100")
            deliveryIds = (rows.jsonArray ?? []).compactMap { ($0 as? [String: Any])?["id"] as? Int }
            if deliveryIds.count < 3 { try await Task.sleep(for: .milliseconds(50)) }
        }
        try #require(deliveryIds.count == 3)
        let pushIds = deliveryIds.map { "\(messageId).\($0)" }

        // Project B claims every delivery and open of A's message, many times, and ids never sent.
        var forged: [[String: Any]] = []
        for pushId in pushIds + ["\(messageId).999999", "\(messageId).0", "m_none.1", "garbage"] {
            forged.append(["message_id": pushId, "type": "delivery", "time": 1])
            forged.append(["message_id": pushId, "type": "open", "time": 2])
        }
        for round in 0..<5 {
            let reply = try await server.sdk(
                "event/push", ["events": forged], rToken: projectB.rToken, key: "b-\(round)")
            #expect(reply.status == 200, "ignored, not refused: \(reply.text)")
        }
        // A's own devices report: one delivery twice, one open.
        let own: [[String: Any]] = [
            ["message_id": pushIds[0], "type": "delivery", "time": 1],
            ["message_id": pushIds[0], "type": "delivery", "time": 1],
            ["message_id": pushIds[1], "type": "delivery", "time": 1],
            ["message_id": pushIds[0], "type": "open", "time": 3],
            ["message_id": "\(messageId).999999", "type": "delivery", "time": 1],
        ]
        _ = try await server.sdk("event/push", ["events": own], rToken: projectA.rToken)
        _ = try await server.sdk("event/push", ["events": own], rToken: projectA.rToken)

        let stats = try await server.admin("GET", "/messages/\(messageId)/stats")
        #expect(stats.json?["targeted"] as? Int == 3)
        #expect(stats.json?["delivered"] as? Int == 2, "\(stats.text)")
        #expect(stats.json?["opened"] as? Int == 1, "\(stats.text)")
        let metrics = try await server.client.get(server.process.rootURL("/metrics")).text
        #expect(metrics.contains("tern_push_events_ignored_total{reason=\"other_recipient\"} 30"), "\(metrics)")
        // A's own repeats: one in its first report, its four counted ones in the second.
        #expect(metrics.contains("tern_push_events_ignored_total{reason=\"repeat\"} 5"), "\(metrics)")
        // B's four ids no delivery has (twice each, five rounds), A's one (twice).
        #expect(metrics.contains("tern_push_events_ignored_total{reason=\"unknown_delivery\"} 42"), "\(metrics)")
    }

    @Test func anotherProjectsJWTCannotCountEventsOnADelivery() async throws {
        let server = try await SecurityServer.start()
        defer { Task { await server.stop() } }
        let signer = try await server.hs256Signer(server.first)
        let otherSigner = try await server.hs256Signer(try await server.createTenant("b"), kid: "b1")
        let ada = try signer.token(email: "ada@example.com")
        let bob = try otherSigner.token(email: "ada@example.com")
        try #require(try await server.sdk("push/subscribe", subscription("ada-phone"), jwt: ada).status == 200)
        let created = try await server.admin(
            "POST", "/messages",
            json: [
                "title": "Hi", "body": "Hello", "project_id": server.first.projectId,
                "audience": ["type": "token", "provider": "ios-apns", "token": "ada-phone"],
            ])
        try #require(created.status == 201, "\(created.text)")
        let messageId = try #require(created.json?["id"] as? String)
        var deliveryId: Int?
        for _ in 0..<200 where deliveryId == nil {
            let rows = try await server.admin("GET", "/messages/\(messageId)/deliveries")
            deliveryId = ((rows.jsonArray ?? []).first as? [String: Any])?["id"] as? Int
            if deliveryId == nil { try await Task.sleep(for: .milliseconds(50)) }
        }
        let pushId = "\(messageId).\(try #require(deliveryId))"
        let open: [String: Any] = ["events": [["message_id": pushId, "type": "open", "time": 1]]]
        // The same email in another project is another profile, of another resource.
        #expect(try await server.sdk("event/push", open, jwt: bob).status == 200)
        let before = try await server.admin("GET", "/messages/\(messageId)/stats")
        #expect(before.json?["opened"] as? Int == 0, "\(before.text)")
        _ = try await server.sdk("event/push", open, jwt: ada)
        _ = try await server.sdk("event/push", open, jwt: ada)
        let stats = try await server.admin("GET", "/messages/\(messageId)/stats")
        #expect(stats.json?["opened"] as? Int == 1, "\(stats.text)")
    }
}
