import Foundation
import TernProtocol
import Testing

@testable import TernServer

/// The management-API routes the dashboard added: overview, message list, audience size, test
/// profiles, a profile's push events.
@Suite struct DashboardAPITests {
    @Test func overviewCountsSubscriptionsByProviderAndStatusAndMessagesPerDay() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.finish() } }
        try await harness.subscribe("a")
        try await harness.subscribe("b")
        try await harness.subscribe("c", endpoint: .pushSuspend)
        _ = try await harness.send(["type": "resource", "resource_id": harness.resourceId])
        let reply = try await harness.server.admin("GET", "/overview", query: ["days": "7"])
        try #require(reply.status == 200, "\(reply.errorText)")
        let counts = try #require(reply.json["subscriptions"] as? [[String: Any]])
        let byStatus = Dictionary(
            uniqueKeysWithValues: counts.map { ("\($0["provider"] ?? "")/\($0["status"] ?? "")", $0.int("count")) })
        #expect(byStatus == ["ios-apns/subscribed": 2, "ios-apns/suspended": 1])
        let days = try #require(reply.json["days"] as? [[String: Any]])
        #expect(days.count == 1)
        #expect(days.first?.int("messages") == 1)
        #expect(days.first?.int("targeted") == 2)
        #expect((reply.json["projects"] as? [Any])?.count == 1)
        #expect((reply.json["resources"] as? [Any])?.count == 1)
    }

    @Test func overviewRefusesDaysOutOfRange() async throws {
        let server = try await InProcessServer()
        defer { Task { await server.finish() } }
        let reply = try await server.admin("GET", "/overview", query: ["days": "365"])
        #expect(reply.status == 400)
        #expect(reply.errorText.contains("days must be"))
    }

    @Test func messageListIsNewestFirstWithCountsAndPagesWithBefore() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.finish() } }
        try await harness.subscribe("a")
        let first = try await harness.send(["type": "resource", "resource_id": harness.resourceId])
        let second = try await harness.send(["type": "resource", "resource_id": harness.resourceId])
        try await harness.engine.drain()
        let reply = try await harness.server.admin("GET", "/messages")
        try #require(reply.status == 200, "\(reply.errorText)")
        #expect(reply.array.map { $0["id"] as? String } == [second, first])
        #expect((reply.array.first?["counts"] as? [String: Any])?.int("sent") == 1)
        let older = try await harness.server.admin("GET", "/messages", query: ["before": second, "limit": "10"])
        #expect(older.array.map { $0["id"] as? String } == [first])
        let unknown = try await harness.server.admin("GET", "/messages", query: ["before": "m_nope"])
        #expect(unknown.status == 404)
        let bad = try await harness.server.admin("GET", "/messages", query: ["limit": "0"])
        #expect(bad.status == 400)
    }

    @Test func audienceSizeCountsDevicesTheFanOutWouldReach() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.finish() } }
        let put = try await harness.server.admin(
            "PUT", "/resources/\(harness.resourceId)/categories/news", json: ["title": "News"])
        try #require(put.status == 200)
        try await harness.subscribe("news-on", cats: ["news": true])
        try await harness.subscribe("news-off", cats: ["news": false])
        try await harness.subscribe("suspended", endpoint: .pushSuspend)
        func size(_ json: [String: Any]) async throws -> InProcessServer.Reply {
            try await harness.server.admin("POST", "/audience/size", json: json)
        }
        let everyone = try await size([
            "title": "t", "audience": ["type": "resource", "resource_id": harness.resourceId],
        ])
        #expect(everyone.json.int("devices") == 2)
        let news = try await size([
            "title": "t", "category": "news", "audience": ["type": "resource", "resource_id": harness.resourceId],
        ])
        #expect(news.json.int("devices") == 1)
        let refused = try await size(["title": "t", "media_url": "http://x", "audience": ["type": "resource"]])
        #expect(refused.status == 400)
        #expect(refused.errorText.contains("media_url"))
        #expect(try await harness.server.admin("GET", "/messages").array.isEmpty, "a size check stored a message")
    }

    @Test func aProfileMarkedAsTestIsListedAndUnmarkedIsNot() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.finish() } }
        let profile = try await harness.subscribe("a")
        try await harness.subscribe("b")
        #expect(try await harness.server.admin("GET", "/test-profiles").array.isEmpty)
        let marked = try await harness.server.admin("PUT", "/profiles/\(profile)/test", json: ["is_test": true])
        try #require(marked.status == 200, "\(marked.errorText)")
        #expect(marked.json["is_test"] as? Bool == true)
        let listed = try await harness.server.admin("GET", "/test-profiles")
        #expect(listed.array.map { $0["id"] as? String } == [profile])
        _ = try await harness.server.admin("PUT", "/profiles/\(profile)/test", json: ["is_test": false])
        #expect(try await harness.server.admin("GET", "/test-profiles").array.isEmpty)
        let missing = try await harness.server.admin("PUT", "/profiles/nobody/test", json: ["is_test": true])
        #expect(missing.status == 404)
    }

    @Test func aProfilesPushEventsAreListedNewestFirst() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.finish() } }
        let profile = try await harness.subscribe("a")
        let id = try await harness.send(["type": "profile", "profile_id": profile])
        try await harness.engine.drain()
        let delivery = try #require(try await harness.deliveries(id).first?.int("id"))
        for type in ["delivery", "open"] {
            let reply = try await harness.server.sdk(
                .eventPush, ["events": [["message_id": "\(id).\(delivery)", "type": type, "time": 2000]]])
            try #require(reply.status == 200, "\(reply.errorText)")
        }
        let events = try await harness.server.admin("GET", "/profiles/\(profile)/push-events")
        try #require(events.status == 200, "\(events.errorText)")
        #expect(events.array.map { $0["type"] as? String } == ["open", "delivery"])
        #expect(events.array.allSatisfy { $0["message_id"] as? String == "\(id).\(delivery)" })
    }

    @Test func everyDashboardRouteNeedsTheAdminKey() async throws {
        let server = try await InProcessServer()
        defer { Task { await server.finish() } }
        for (method, path) in [
            ("GET", "/overview"), ("GET", "/messages"), ("GET", "/test-profiles"), ("POST", "/audience/size"),
            ("PUT", "/profiles/x/test"), ("GET", "/profiles/x/push-events"),
        ] {
            let reply = await server.send(method, "/api/v1/admin" + path, body: Data("{}".utf8))
            #expect(reply.status == 401, "\(method) \(path)")
        }
    }
}
