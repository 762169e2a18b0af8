import Foundation
import Testing

@testable import TernServer

/// `GET /api/v1/admin/messages`'s filters (`state`, `kind`, `q`, `created_after`, `created_before`),
/// alone and combined, paging over a filtered list, a project key's view, and each refusal; on
/// every backend (PostgreSQL when the tests have one).
@Suite struct MessageListFilterTests {
    /// One message of each sort, made in this order (the list is newest first).
    struct Made {
        var blackFriday = "", points = "", noel = "", scheduled = "", cancelled = "", trigger = "", recurring = ""
        var abTest = "", live = "", sending = ""
    }

    static func make(_ harness: DeliveryHarness) async throws -> Made {
        try await harness.subscribe("a")
        let audience: [String: Any] = ["type": "resource", "resource_id": harness.resourceId]
        func create(_ json: [String: Any]) async throws -> String {
            var json = json
            if json["audience"] == nil { json["audience"] = audience }
            let reply = try await harness.create(json)
            try #require(reply.status == 201, "\(json): \(reply.errorText)")
            return try #require(reply.json["id"] as? String)
        }
        let tomorrow = ServerClock.milliseconds() + 86_400_000
        var made = Made()
        made.blackFriday = try await create(["title": "Black Friday", "body": "50% off everything"])
        try await Task.sleep(for: .milliseconds(5))
        made.points = try await create(["title": "Points", "body": "Win 500 points"])
        made.noel = try await create(["title": "Joyeux NOËL", "body": "Café offert"])
        made.scheduled = try await create(["title": "Tomorrow's sale", "body": "Soon", "send_at": tomorrow])
        made.cancelled = try await create(["title": "Oops", "body": "Never mind", "send_at": tomorrow])
        let cancel = try await harness.server.admin("POST", "/messages/\(made.cancelled)/cancel")
        try #require(cancel.status == 200, "\(cancel.errorText)")
        made.trigger = try await create([
            "title": "Your cart", "body": "Still there", "trigger": ["event_name": "cart", "delay_minutes": 10],
        ])
        made.recurring = try await create(["title": "Daily picks", "body": "For you", "repeat": ["every_days": 1]])
        made.abTest = try await create([
            "title": "Version A", "body": "Pick one", "variants": [[:], ["title": "Version B"]],
        ])
        made.live = try await create([
            "live_activity": ["event": "update", "content_state": ["status": "On its way"]],
            "audience": ["type": "live_activity", "activity_id": "order-1001"],
        ])
        while try await harness.engine.drain() > 0 {}
        // Made after the drain: its audience is still to be read.
        made.sending = try await create(["title": "Just now", "body": "Going out"])
        return made
    }

    static func ids(
        _ harness: DeliveryHarness, _ query: [String: String], sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> [String] {
        let reply = try await harness.server.admin("GET", "/messages", query: query)
        try #require(reply.status == 200, "\(query): \(reply.errorText)", sourceLocation: sourceLocation)
        return reply.array.compactMap { $0["id"] as? String }
    }

    @Test(arguments: StoreFactory.all)
    func eachStateAndKindFindsItsMessagesOnly(store: StoreFactory) async throws {
        let harness = try await DeliveryHarness.make(store: store)
        defer { Task { await harness.finish() } }
        let m = try await Self.make(harness)
        #expect(try await Self.ids(harness, ["state": "scheduled"]) == [m.scheduled])
        #expect(try await Self.ids(harness, ["state": "cancelled"]) == [m.cancelled])
        #expect(try await Self.ids(harness, ["state": "standing"]) == [m.recurring, m.trigger])
        #expect(try await Self.ids(harness, ["state": "sending"]) == [m.sending])
        #expect(try await Self.ids(harness, ["state": "done"]) == [m.live, m.abTest, m.noel, m.points, m.blackFriday])
        #expect(try await Self.ids(harness, ["kind": "trigger"]) == [m.trigger])
        #expect(try await Self.ids(harness, ["kind": "repeat"]) == [m.recurring])
        #expect(try await Self.ids(harness, ["kind": "live_activity"]) == [m.live])
        #expect(try await Self.ids(harness, ["kind": "ab_test"]) == [m.abTest])
        #expect(
            try await Self.ids(harness, ["kind": "one_off"])
                == [m.sending, m.cancelled, m.scheduled, m.noel, m.points, m.blackFriday])
        // Combined: each part narrows the other.
        #expect(
            try await Self.ids(harness, ["state": "done", "kind": "one_off"]) == [m.noel, m.points, m.blackFriday])
        #expect(try await Self.ids(harness, ["state": "standing", "q": "PICKS"]) == [m.recurring])
        #expect(try await Self.ids(harness, ["kind": "trigger", "q": "picks"]).isEmpty)
    }

    @Test(arguments: StoreFactory.all)
    func anABTestsWinnerSendIsOfTheTestsKind(store: StoreFactory) async throws {
        let harness = try await DeliveryHarness.make(store: store)
        defer { Task { await harness.finish() } }
        for n in 0..<4 { try await harness.subscribe("d\(n)") }
        let test = try await harness.send(
            ["type": "resource", "resource_id": harness.resourceId],
            extra: ["variants": [[:], ["title": "B"]], "test_audience_percent": 50])
        while try await harness.engine.drain() > 0 {}
        let winner = try await harness.server.admin("POST", "/messages/\(test)/winner", json: ["variant": "b"])
        try #require(winner.status == 201, "\(winner.errorText)")
        let winnerId = try #require(winner.json["id"] as? String)
        let plain = try await harness.send(["type": "resource", "resource_id": harness.resourceId])
        #expect(try await Self.ids(harness, ["kind": "ab_test"]) == [winnerId, test])
        #expect(try await Self.ids(harness, ["kind": "one_off"]) == [plain])
    }

    @Test(arguments: StoreFactory.all)
    func textIsFoundInTitleBodyVersionAndIdInAnyCase(store: StoreFactory) async throws {
        let harness = try await DeliveryHarness.make(store: store)
        defer { Task { await harness.finish() } }
        let m = try await Self.make(harness)
        #expect(try await Self.ids(harness, ["q": "black FRIDAY"]) == [m.blackFriday])
        // `%` is a character to find, not LIKE's wildcard ("500 points" holds "50" but not "50%").
        #expect(try await Self.ids(harness, ["q": "50%"]) == [m.blackFriday])
        #expect(try await Self.ids(harness, ["q": "version b"]) == [m.abTest])
        #expect(try await Self.ids(harness, ["q": "noël"]) == [m.noel], "text outside ASCII, in another case")
        #expect(try await Self.ids(harness, ["q": "CAFÉ"]) == [m.noel])
        #expect(
            try await Self.ids(harness, ["q": String(m.trigger.dropFirst(2).prefix(8)).uppercased()]) == [m.trigger])
        // A word of the stored request that is no title, body or id finds nothing.
        #expect(try await Self.ids(harness, ["q": "every_days"]).isEmpty)
        #expect(try await Self.ids(harness, ["q": "nothing like it"]).isEmpty)
    }

    @Test(arguments: StoreFactory.all)
    func creationTimesTakeMillisecondsAndISO8601(store: StoreFactory) async throws {
        let harness = try await DeliveryHarness.make(store: store)
        defer { Task { await harness.finish() } }
        let m = try await Self.make(harness)
        let all = try await Self.ids(harness, [:])
        let first = try await harness.server.admin("GET", "/messages/\(m.blackFriday)").json.int("created_at")
        #expect(try await Self.ids(harness, ["created_before": "\(first + 1)"]) == [m.blackFriday])
        #expect(try await Self.ids(harness, ["created_after": "\(first + 1)"]) == Array(all.dropLast()))
        #expect(try await Self.ids(harness, ["created_before": "2100-01-01"]) == all)
        #expect(try await Self.ids(harness, ["created_after": "2100-01-01T00:00:00Z"]).isEmpty)
        #expect(
            try await Self.ids(harness, ["created_before": "\(first + 1)", "q": "black", "kind": "one_off"])
                == [m.blackFriday])
    }

    @Test(arguments: StoreFactory.all)
    func pagingAFilteredListVisitsEachMatchOnce(store: StoreFactory) async throws {
        let harness = try await DeliveryHarness.make(store: store)
        defer { Task { await harness.finish() } }
        _ = try await Self.make(harness)
        for filter in [["kind": "one_off"], ["q": "o"], ["state": "done", "q": "e"]] {
            let whole = try await Self.ids(harness, filter)
            try #require(whole.count >= 3, "\(filter): \(whole)")
            var pages: [String] = []
            var cursor: String?
            while true {
                var query = filter.merging(["limit": "2"]) { a, _ in a }
                query["before"] = cursor
                let page = try await Self.ids(harness, query)
                pages += page
                guard page.count == 2, let last = page.last else { break }
                cursor = last
            }
            #expect(pages == whole, "\(filter)")
        }
    }

    @Test(arguments: StoreFactory.all)
    func aProjectKeyFindsItsOwnProjectsMessagesOnly(store: StoreFactory) async throws {
        let harness = try await DeliveryHarness.make(store: store)
        defer { Task { await harness.finish() } }
        let server = harness.server
        try await harness.subscribe("own")
        let own = try await harness.send(
            ["type": "resource", "resource_id": harness.resourceId], extra: ["title": "Black Friday here"])
        let project = try await server.admin("POST", "/projects", json: ["name": "other"]).json.int("id")
        try #require(
            try await server.admin("POST", "/projects/\(project)/databases", json: ["name": "main"]).status == 201)
        let resource = try await server.admin(
            "POST", "/resources", json: ["project_id": project, "name": "app", "channels": ["push"]])
        let theirs = try await harness.send(
            ["type": "resource", "resource_id": resource.json.int("id")], extra: ["title": "Black Friday there"])
        let key = try await server.admin(
            "POST", "/keys", json: ["project_id": server.bootstrap.projectId, "role": "read", "name": "list"])
        let secret = try #require(key.json["secret"] as? String, "\(key.errorText)")
        for query in [["q": "black friday"], ["kind": "one_off"], ["state": "sending"]] {
            let reply = await server.send(
                "GET", "/api/v1/admin/messages", headers: ["Authorization": "Bearer \(secret)"], query: query)
            try #require(reply.status == 200, "\(reply.errorText)")
            #expect(reply.array.compactMap { $0["id"] as? String } == [own], "\(query)")
        }
        #expect(try await Self.ids(harness, ["q": "black friday"]) == [theirs, own])
    }

    @Test func eachRefusalNamesTheParameterAndItsValues() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.finish() } }
        for (query, reason) in [
            (["state": "paused"], "state must be one of scheduled, sending, done, cancelled, standing"),
            (["kind": "email"], "kind must be one of one_off, trigger, repeat, live_activity, ab_test"),
            (["q": ""], "q must be 1 to 100 characters"),
            (["q": String(repeating: "a", count: 101)], "q must be 1 to 100 characters"),
            (["created_after": "last week"], "created_after must be a time in ms since 1970 or ISO 8601"),
            (["created_before": "2026-13-45"], "created_before must be a time in ms since 1970 or ISO 8601"),
        ] {
            let reply = try await harness.server.admin("GET", "/messages", query: query)
            #expect(reply.status == 400, "\(query)")
            #expect(reply.errorText.contains(reason), "\(query): \(reply.errorText)")
        }
    }
}
