import Foundation
import TernProtocol
import Testing

@testable import TernServer

/// The SDK's Idempotency-Key: a repeat is answered as the first and applied once, on both
/// backends (on PostgreSQL the key's lookup goes with the write's first read: `unlessAnswered`).
@Suite struct IdempotencyTests {
    @Test(arguments: StoreFactory.all)
    func repeatWithTheSameKeyAndBodyGetsTheStoredAnswerAndChangesNothing(factory: StoreFactory) async throws {
        let server = try await InProcessServer(factory)
        defer { Task { await server.finish() } }
        let body = InProcessServer.subscription(
            time: 1, extra: ["profile_fields": ["visits": ["action": "incr", "value": 1]]])
        let first = try await server.sdk(.pushSubscribe, body, key: "key-1")
        let second = try await server.sdk(.pushSubscribe, body, key: "key-1")
        #expect(first.status == 200)
        #expect(second.status == 200)
        #expect(second.body == first.body)
        #expect(second.header("Idempotent-Replayed") == "true")
        #expect(first.header("Idempotent-Replayed") == nil)
        let view = try await server.admin("GET", "/profiles/\(first.profile?.id ?? "")")
        #expect((view.json["fields"] as? [String: Any])?["visits"] as? Int == 1)
        #expect(server.metrics.render().contains("tern_idempotent_replays_total 1"))
    }

    @Test(arguments: StoreFactory.all)
    func theSameKeyWithAnotherBodyIs422(factory: StoreFactory) async throws {
        let server = try await InProcessServer(factory)
        defer { Task { await server.finish() } }
        _ = try await server.sdk(.pushSubscribe, InProcessServer.subscription(token: "a"), key: "key-2")
        let other = try await server.sdk(.pushSubscribe, InProcessServer.subscription(token: "b"), key: "key-2")
        #expect(other.status == 422)
        #expect(other.errorText.contains("already used for a different request"))
        let otherEndpoint = try await server.sdk(.pushSuspend, InProcessServer.subscription(token: "a"), key: "key-2")
        #expect(otherEndpoint.status == 422)
    }

    @Test(arguments: StoreFactory.all)
    func aFailedRequestIsNotStoredSoACorrectedRetrySucceeds(factory: StoreFactory) async throws {
        let server = try await InProcessServer(factory)
        defer { Task { await server.finish() } }
        let body = InProcessServer.subscription(extra: ["cats": [["name": "news", "active": true]]])
        let refused = try await server.sdk(.pushSubscribe, body, key: "key-3")
        #expect(refused.status == 400)
        _ = try await server.admin("PUT", "/resources/\(server.bootstrap.resourceId)/categories/news", json: [:])
        let accepted = try await server.sdk(.pushSubscribe, body, key: "key-3")
        #expect(accepted.status == 200)
    }

    @Test(arguments: StoreFactory.all)
    func concurrentRepeatsApplyOnce(factory: StoreFactory) async throws {
        let server = try await InProcessServer(factory)
        defer { Task { await server.finish() } }
        let body = InProcessServer.subscription(extra: ["profile_fields": ["n": ["action": "incr", "value": 1]]])
        let data = try JSONSerialization.data(withJSONObject: body, options: [.sortedKeys])
        let headers = [Wire.rTokenHeader: server.bootstrap.rToken, Wire.idempotencyKeyHeader: "same"]
        let replies = await withTaskGroup(of: InProcessServer.Reply.self) { group in
            for _ in 0..<20 {
                group.addTask { await server.send("POST", Endpoint.pushSubscribe.path, body: data, headers: headers) }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(replies.allSatisfy { $0.status == 200 })
        #expect(Set(replies.map(\.body)).count == 1)
        let id = replies[0].profile?.id ?? ""
        let view = try await server.admin("GET", "/profiles/\(id)")
        #expect((view.json["fields"] as? [String: Any])?["n"] as? Int == 1)
    }

    /// Each kind of SDK write repeated with its key: one whose first statement is a read (an
    /// update: the token's holders), one that writes first (a report of a delivery), one of held
    /// writes only (a goal). Each repeat is replayed and changes nothing; on PostgreSQL the update's
    /// lookup went with its first read, the others' alone.
    @Test(arguments: StoreFactory.all)
    func aRepeatOfEachKindOfWriteIsReplayedAndAppliedOnce(factory: StoreFactory) async throws {
        let server = try await InProcessServer(factory)
        defer { Task { await server.finish() } }
        let project = server.bootstrap.projectId
        _ = try await server.admin("POST", "/projects/\(project)/pixels", json: ["sid": "repeat"])
        let subscribed = try await server.sdk(.pushSubscribe, InProcessServer.subscription(token: "old"), key: "s")
        #expect(subscribed.status == 200)

        let move: [String: Any] = ["provider": "ios-apns", "old_subscription_id": "old", "subscription_id": "new"]
        let moved = try await server.sdk(.pushUpdate, move, key: "u")
        let movedAgain = try await server.sdk(.pushUpdate, move, key: "u")
        #expect(moved.status == 200 && movedAgain.status == 200, "\(moved.errorText) \(movedAgain.errorText)")
        #expect(movedAgain.header("Idempotent-Replayed") == "true")
        #expect(movedAgain.body == moved.body)
        let otherMove = try await server.sdk(.pushUpdate, move.merging(["subscription_id": "newer"]) { $1 }, key: "u")
        #expect(otherMove.status == 422, "the same key for another update")

        let goal: [String: Any] = ["events": [["sid": "repeat", "event_name": "purchase", "time": 1]]]
        for _ in 0..<2 { #expect(try await server.sdk(.eventPost, goal, key: "g").status == 200) }
        let goals = try await server.admin("GET", "/projects/\(project)/pixels/repeat/goals")
        #expect(goals.array.count == 1, "the repeated goal was stored once")

        let report: [String: Any] = ["events": [["message_id": "m-none.1", "type": "open", "time": 1]]]
        let reported = try await server.sdk(.eventPush, report, key: "r")
        let reportedAgain = try await server.sdk(.eventPush, report, key: "r")
        #expect(reported.status == 200 && reportedAgain.header("Idempotent-Replayed") == "true")
        #expect(server.metrics.render().contains("tern_idempotent_replays_total 3"))
    }

    @Test func malformedKeyIs400() async throws {
        let server = try await InProcessServer()
        defer { Task { await server.finish() } }
        let long = try await server.sdk(
            .pushSubscribe, InProcessServer.subscription(), key: String(repeating: "k", count: 129))
        #expect(long.status == 400)
        #expect(long.errorText.contains("Idempotency-Key"))
        let spaced = try await server.sdk(.pushSubscribe, InProcessServer.subscription(), key: "has space")
        #expect(spaced.status == 400)
    }

    @Test func requestsWithoutAKeyAreStillApplied() async throws {
        let server = try await InProcessServer()
        defer { Task { await server.finish() } }
        let first = try await server.sdk(.pushSubscribe, InProcessServer.subscription())
        let second = try await server.sdk(.pushSubscribe, InProcessServer.subscription())
        #expect(first.status == 200)
        #expect(second.status == 200)
        #expect(second.header("Idempotent-Replayed") == nil)
    }
}
