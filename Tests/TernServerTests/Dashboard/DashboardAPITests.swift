import Foundation
import TernProtocol
import Testing

@testable import TernServer

/// The management-API routes the dashboard added: overview, message list, audience size, test
/// profiles, a profile's push events; each on every backend (PostgreSQL when the tests have one),
/// so the dashboard's queries of both stores run.
@Suite struct DashboardAPITests {
    @Test(arguments: StoreFactory.all)
    func overviewCountsSubscriptionsByProviderAndStatusAndMessagesPerDay(store: StoreFactory) async throws {
        let harness = try await DeliveryHarness.make(store: store)
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

    @Test(arguments: StoreFactory.all)
    func overviewCountsTheSendableDevicesByTheirNotificationPermission(store: StoreFactory) async throws {
        let harness = try await DeliveryHarness.make(store: store)
        defer { Task { await harness.finish() } }
        try await harness.subscribe("shows", fields: ["_push_permission": "authorized"])
        try await harness.subscribe("quiet", fields: ["_push_permission": "provisional"])
        try await harness.subscribe("off", fields: ["_push_permission": "denied"])
        try await harness.subscribe("off-too", fields: ["_push_permission": "denied"])
        try await harness.subscribe("older-sdk", fields: ["_push_permission_note": "not the field"])
        try await harness.subscribe("suspended", endpoint: .pushSuspend, fields: ["_push_permission": "authorized"])
        let reply = try await harness.server.admin("GET", "/overview", query: ["days": "7"])
        try #require(reply.status == 200, "\(reply.errorText)")
        let counts = try #require(reply.json["permissions"] as? [[String: Any]])
        #expect(counts.allSatisfy { $0.int("resource_id") == harness.resourceId })
        let byPermission = Dictionary(
            uniqueKeysWithValues: counts.map { (($0["permission"] as? String) ?? "not reported", $0.int("count")) })
        // The suspended device is not one a push goes to, whatever it reported.
        #expect(byPermission == ["authorized": 1, "provisional": 1, "denied": 2, "not reported": 1])
    }

    @Test func overviewRefusesDaysOutOfRange() async throws {
        let server = try await InProcessServer()
        defer { Task { await server.finish() } }
        let reply = try await server.admin("GET", "/overview", query: ["days": "365"])
        #expect(reply.status == 400)
        #expect(reply.errorText.contains("days must be"))
    }

    @Test(arguments: StoreFactory.all)
    func messageListIsNewestFirstWithCountsAndPagesWithBefore(store: StoreFactory) async throws {
        let harness = try await DeliveryHarness.make(store: store)
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

    @Test(arguments: StoreFactory.all)
    func audienceSizeCountsDevicesTheFanOutWouldReach(store: StoreFactory) async throws {
        let harness = try await DeliveryHarness.make(store: store)
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

    @Test(arguments: StoreFactory.all)
    func audienceSizeOfASegmentCountsItsMatchesAndSaysNoneForOneThatMatchesNothing(store: StoreFactory) async throws {
        let harness = try await DeliveryHarness.make(store: store)
        defer { Task { await harness.finish() } }
        try await harness.subscribe("gold-1", fields: ["plan": "gold"])
        try await harness.subscribe("gold-2", fields: ["plan": "gold"])
        try await harness.subscribe("free", fields: ["plan": "free"])
        func segment(_ name: String, plan: String) async throws -> Int64 {
            let made = try await harness.server.admin(
                "POST", "/segments",
                json: [
                    "project_id": harness.server.bootstrap.projectId, "resource_id": harness.resourceId, "name": name,
                    "filter": ["field": "fields.plan", "op": "eq", "value": plan],
                ])
            try #require(made.status == 201, "\(made.errorText)")
            return made.json.int("id")
        }
        func size(_ id: Int64) async throws -> InProcessServer.Reply {
            try await harness.server.admin(
                "POST", "/audience/size", json: ["title": "t", "audience": ["type": "segment", "segment_id": id]])
        }
        let gold = try await size(try await segment("gold", plan: "gold"))
        #expect(gold.status == 200 && gold.json.int("devices") == 2, "\(gold.errorText)")
        let nobody = try await size(try await segment("nobody", plan: "platinum"))
        #expect(nobody.status == 200 && nobody.json.int("devices") == 0, "\(nobody.errorText)")
        let missing = try await size(999)
        #expect(missing.status == 404 && missing.errorText.contains("audience.segment_id"), "\(missing.errorText)")
        #expect(try await harness.server.admin("GET", "/messages").array.isEmpty, "a size check stored a message")
    }

    @Test(arguments: StoreFactory.all)
    func aProfileMarkedAsTestIsListedAndUnmarkedIsNot(store: StoreFactory) async throws {
        let harness = try await DeliveryHarness.make(store: store)
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

    @Test(arguments: StoreFactory.all)
    func aProfilesPushEventsAreListedNewestFirst(store: StoreFactory) async throws {
        let harness = try await DeliveryHarness.make(store: store)
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

    @Test(arguments: StoreFactory.all)
    func aProjectKeySeesItsOwnProjectsOverviewMessagesAndTestProfilesOnly(store: StoreFactory) async throws {
        let harness = try await DeliveryHarness.make(store: store)
        defer { Task { await harness.finish() } }
        let server = harness.server
        let own = try await harness.subscribe("own")
        let ownMessage = try await harness.send(["type": "resource", "resource_id": harness.resourceId])
        try #require(try await server.admin("PUT", "/profiles/\(own)/test", json: ["is_test": true]).status == 200)

        let project = try await server.admin("POST", "/projects", json: ["name": "other"]).json.int("id")
        try #require(project > 0)
        try #require(
            try await server.admin("POST", "/projects/\(project)/databases", json: ["name": "main"]).status == 201)
        let resource = try await server.admin(
            "POST", "/resources", json: ["project_id": project, "name": "app", "channels": ["push"]])
        let rToken = try #require(resource.json["rtoken"] as? String, "\(resource.errorText)")
        let subscribed = try await server.sdk(
            .pushSubscribe, InProcessServer.subscription(token: "other"), rToken: rToken)
        let other = try #require(subscribed.profile?.id, "\(subscribed.errorText)")
        let otherMessage = try await harness.send(["type": "resource", "resource_id": resource.json.int("id")])
        try #require(try await server.admin("PUT", "/profiles/\(other)/test", json: ["is_test": true]).status == 200)

        let key = try await server.admin(
            "POST", "/keys", json: ["project_id": server.bootstrap.projectId, "role": "read", "name": "dashboard"])
        let secret = try #require(key.json["secret"] as? String, "\(key.errorText)")
        func asProject(_ path: String, _ query: [String: String] = [:]) async -> InProcessServer.Reply {
            await server.send(
                "GET", "/api/v1/admin" + path, headers: ["Authorization": "Bearer \(secret)"], query: query)
        }

        let overview = await asProject("/overview", ["days": "3"])
        try #require(overview.status == 200, "\(overview.errorText)")
        #expect((overview.json["projects"] as? [[String: Any]])?.map { $0.int("id") } == [server.bootstrap.projectId])
        let counts = try #require(overview.json["subscriptions"] as? [[String: Any]])
        #expect(counts.map { $0.int("resource_id") } == [harness.resourceId])
        let days = try #require(overview.json["days"] as? [[String: Any]])
        #expect(days.map { [$0.int("messages"), $0.int("targeted")] } == [[1, 1]])
        let everything = try await server.admin("GET", "/overview", query: ["days": "3"])
        let allDays = try #require(everything.json["days"] as? [[String: Any]])
        #expect(allDays.map { [$0.int("messages"), $0.int("targeted")] } == [[2, 2]])
        #expect((everything.json["subscriptions"] as? [Any])?.count == 2)

        #expect(await asProject("/messages").array.map { $0["id"] as? String } == [ownMessage])
        #expect(
            try await server.admin("GET", "/messages").array.map { $0["id"] as? String } == [otherMessage, ownMessage])
        #expect(await asProject("/messages", ["before": ownMessage]).array.isEmpty)

        #expect(await asProject("/test-profiles").array.map { $0["id"] as? String } == [own])
        #expect(try await server.admin("GET", "/test-profiles").array.map { $0["id"] as? String } == [own, other])
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
