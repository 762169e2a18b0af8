import Foundation
import Testing

@testable import TernServer

/// Bad messages are refused with a reason a person can act on, and nothing is queued.
@Suite struct MessageValidationTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let json: @Sendable () -> [String: Any]
        let status: Int
        let reason: String
        var testDescription: String { name }
    }

    static var token: [String: Any] { ["type": "token", "provider": "ios-apns", "token": "token-1"] }

    static func alert(_ extra: [String: Any]) -> [String: Any] {
        var json: [String: Any] = ["title": "Hi", "audience": token]
        json.merge(extra) { _, new in new }
        return json
    }

    static let cases: [Case] = [
        Case(name: "no text", json: { ["audience": token] }, status: 400, reason: "needs a title or a body"),
        Case(name: "push type", json: { alert(["push_type": "silent"]) }, status: 400, reason: "push_type must be"),
        Case(
            name: "background with a title", json: { alert(["push_type": "background"]) }, status: 400,
            reason: "leave out title"),
        Case(
            name: "background tracking", json: { ["push_type": "background", "track_open": true, "audience": token] },
            status: 400, reason: "cannot track"),
        Case(
            name: "background priority", json: { ["push_type": "background", "priority": 10, "audience": token] },
            status: 400, reason: "priority 5"),
        Case(name: "priority", json: { alert(["priority": 7]) }, status: 400, reason: "priority must be 10"),
        Case(name: "ttl", json: { alert(["time_to_live": -1]) }, status: 400, reason: "time_to_live must be 0 to"),
        Case(
            name: "ttl too long", json: { alert(["time_to_live": 3_000_000]) }, status: 400,
            reason: "time_to_live must be 0 to 2419200"),
        Case(
            name: "collapse id", json: { alert(["collapse_id": String(repeating: "c", count: 65)]) }, status: 400,
            reason: "collapse_id must be 1 to 64"),
        Case(name: "badge", json: { alert(["badge": -1]) }, status: 400, reason: "badge must be"),
        Case(
            name: "media over http", json: { alert(["media_url": "http://cdn.example.com/a.jpg"]) }, status: 400,
            reason: "media_url must be https"),
        Case(
            name: "media not a URL", json: { alert(["media_url": "a picture"]) }, status: 400,
            reason: "not an absolute URL"),
        Case(name: "click url", json: { alert(["click_url": "/relative"]) }, status: 400, reason: "click_url"),
        Case(
            name: "four buttons",
            json: {
                alert(["buttons": (1...4).map { ["id": "b\($0)", "title": "B", "action": "open"] }])
            }, status: 400, reason: "at most 3"),
        Case(
            name: "button id the devices would drop",
            json: { alert(["buttons": [["id": "buy now", "title": "B", "action": "open"]]]) }, status: 400,
            reason: "buttons[0]: 'id' 'buy now' may hold only letters, digits, '.', '_' and '-'"),
        Case(
            name: "button action",
            json: { alert(["buttons": [["id": "b", "title": "B", "action": "call"]]]) }, status: 400,
            reason: "buttons[0].action must be one of open, url, dismiss"),
        Case(
            name: "url button without url",
            json: { alert(["buttons": [["id": "b", "title": "B", "action": "url"]]]) }, status: 400,
            reason: "has action url but no url"),
        Case(
            name: "url on an open button",
            json: { alert(["buttons": [["id": "b", "title": "B", "action": "open", "url": "https://e.com"]]]) },
            status: 400, reason: "url goes only with action url"),
        Case(
            name: "duplicate button ids",
            json: {
                alert([
                    "buttons": [
                        ["id": "b", "title": "B", "action": "open"], ["id": "b", "title": "C", "action": "dismiss"],
                    ]
                ])
            }, status: 400, reason: "used twice"),
        Case(
            name: "data with aps", json: { alert(["data": ["aps": 1]]) }, status: 400,
            reason: "may not have the key aps"),
        Case(
            name: "payload too large", json: { alert(["body": String(repeating: "b", count: 4096)]) }, status: 400,
            reason: "over APNs' limit of 4096"),
        Case(
            name: "environment", json: { alert(["environment": "staging"]) }, status: 400, reason: "environment must be"
        ),
        Case(
            name: "audience type", json: { ["title": "Hi", "audience": ["type": "everyone"]] }, status: 400,
            reason: "audience.type must be one of"),
        Case(
            name: "audience token provider",
            json: { ["title": "Hi", "audience": ["type": "token", "provider": "android", "token": "t"]] },
            status: 400, reason: "audience.provider"),
        Case(
            name: "audience stray key",
            json: { ["title": "Hi", "audience": ["type": "resource", "resource_id": 1, "token": "t"]] }, status: 400,
            reason: "audience.token does not go with type resource"),
        Case(
            name: "audience status",
            json: { ["title": "Hi", "audience": ["type": "resource", "resource_id": 1, "status": "suspended"]] },
            status: 400, reason: "audience.status can only be subscribed"),
        Case(
            name: "unknown resource", json: { ["title": "Hi", "audience": ["type": "resource", "resource_id": 999]] },
            status: 404, reason: "resource 999 does not exist"),
        Case(
            name: "unknown category",
            json: { ["title": "Hi", "category": "promo", "audience": ["type": "resource", "resource_id": 1]] },
            status: 400, reason: "category promo is not a category of resource 1"),
        Case(
            name: "unknown profile",
            json: { ["title": "Hi", "audience": ["type": "profiles", "profile_ids": ["nope"]]] },
            status: 404, reason: "no profile with id nope"),
        Case(
            name: "missing audience", json: { ["title": "Hi"] }, status: 400, reason: "field \"audience\" is required"),
        Case(
            name: "wrong project",
            json: { ["title": "Hi", "project_id": 77, "audience": ["type": "resource", "resource_id": 1]] },
            status: 400, reason: "more than one project"),
    ]

    @Test(arguments: cases)
    func refusedWithAReasonAndNothingQueued(_ row: Case) async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.finish() } }
        try await harness.subscribe("token-1")
        let reply = try await harness.create(row.json())
        #expect(reply.status == row.status, "\(reply.errorText)")
        #expect(reply.error == row.status)
        #expect(reply.errorText.contains(row.reason), "got: \(reply.errorText)")
        let stored = try await harness.server.store.read { try $0.message(id: 1) }
        #expect(stored == nil)
        #expect(try await harness.engine.drain() == 0)
    }

    @Test func theAdminKeyIsRequired() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.finish() } }
        let body = try JSONSerialization.data(withJSONObject: Self.alert([:]))
        let reply = await harness.server.send("POST", "/api/v1/admin/messages", body: body)
        #expect(reply.status == 401)
        let wrong = await harness.server.send(
            "GET", "/api/v1/admin/messages/m_1/stats", headers: ["Authorization": "Bearer nope"])
        #expect(wrong.status == 401)
    }

    @Test func aRepeatedIdempotencyKeyAnswersTheFirstMessageAndQueuesOnce() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.finish() } }
        try await harness.subscribe("token-1")
        let body = try JSONSerialization.data(withJSONObject: Self.alert([:]), options: [.sortedKeys])
        let headers = ["Authorization": "Bearer \(harness.server.bootstrap.adminKey)", "Idempotency-Key": "send-1"]
        let first = await harness.server.send("POST", "/api/v1/admin/messages", body: body, headers: headers)
        let again = await harness.server.send("POST", "/api/v1/admin/messages", body: body, headers: headers)
        #expect(first.status == 201)
        #expect(again.status == 201)
        #expect(again.body == first.body)
        let other = try JSONSerialization.data(withJSONObject: Self.alert(["body": "changed"]), options: [.sortedKeys])
        let conflict = await harness.server.send("POST", "/api/v1/admin/messages", body: other, headers: headers)
        #expect(conflict.status == 422)
        #expect(try await harness.engine.drain() == 1)
        #expect(harness.sentTokens == ["token-1"])
        let second = try await harness.server.store.read { try $0.message(id: 2) }
        #expect(second == nil)
    }

    @Test func anUnknownMessageIs404() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.finish() } }
        let reply = try await harness.server.admin("GET", "/messages/m_missing")
        #expect(reply.status == 404)
        #expect(reply.errorText == "message m_missing does not exist")
    }
}
