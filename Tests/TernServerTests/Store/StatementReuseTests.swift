import Foundation
import TernProtocol
import Testing

@testable import TernServer

/// The SQLite store prepares each query once and keeps it. SQLite silently compiles a kept statement
/// again on every call when one of its parameters was compared with a partial index's condition
/// while it was planned; this runs the SDK's writes and a send's claims and outcomes twice over and
/// holds every kept statement to no recompilation at all.
@Suite struct StatementReuseTests {
    @Test func theSDKRoutesAndASendRunOnStatementsPlannedOnce() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.finish() } }
        let server = harness.server
        let store = try #require(server.store as? SQLiteStore)
        // Opening the file migrated its schema, which recompiles what ran before each step.
        let opened = try await store.recompiledStatements()
        let pixel = try await server.admin(
            "POST", "/projects/\(server.bootstrap.projectId)/pixels", json: ["sid": "reuse", "name": "reuse"])
        try #require(pixel.status == 201 || pixel.status == 200, "pixel: \(pixel.status) \(pixel.errorText)")
        let busy = DeliveryOutcome.retry(after: nil, reason: "TooManyRequests")
        harness.sender.script("device-1", [busy, .sent(providerMessageId: "a")])
        for round in 0..<2 {
            for index in 0..<3 {
                try await harness.subscribe("device-\(index)", time: 1000 + Int64(round), fields: ["round": round])
            }
            let moved = try await server.sdk(
                .pushUpdate,
                [
                    "provider": "ios-apns", "old_subscription_id": "device-2", "subscription_id": "device-2",
                    "custom_fields": ["_app_version": "1.\(round)"],
                ])
            #expect(moved.status == 200, "update: \(moved.errorText)")
            for (endpoint, extra) in [
                (Endpoint.inAppSubscribe, ["time": 1000 + round, "custom_fields": ["tier": "gold"]] as [String: Any]),
                (.profileTagsSet, ["tags": ["interest": "travel\(round)"]]),
                (.pushSuspend, ["time": 1100 + round, "sync": false]),
                (.pushSubscribe, ["time": 1200 + round, "sync": false]),
            ] {
                let body = extra.merging(["provider": "ios-apns", "subscription_id": "device-1"]) { old, _ in old }
                let reply = try await server.sdk(endpoint, body)
                #expect(reply.status == 200, "\(endpoint.path): \(reply.errorText)")
            }
            let status = try await server.sdk(
                .pushStatus, ["provider": "ios-apns", "subscription_id": "device-0", "mode": "current"])
            #expect(status.status == 200, "status: \(status.errorText)")
            let goal = try await server.sdk(
                .eventPost,
                ["events": [["sid": "reuse", "client_id": "c-\(round)", "event_name": "purchase", "time": 1000]]])
            #expect(goal.status == 200, "event/post: \(goal.errorText)")

            let id = try await harness.send(["type": "resource", "resource_id": harness.resourceId])
            while try await harness.engine.drain() > 0 { harness.clock.advance(seconds: 120) }
            let delivered = try await harness.deliveries(id)
            let reports = delivered.flatMap { row -> [[String: Any]] in
                let pushId = "\(id).\(row.int("id"))"
                return [
                    ["message_id": pushId, "type": "delivery", "time": 2000],
                    ["message_id": pushId, "type": "open", "time": 3000],
                ]
            }
            let events = try await server.sdk(.eventPush, ["events": reports])
            #expect(events.status == 200, "event/push: \(events.errorText)")
            #expect(try await harness.stats(id).int("opened") == 3)
        }
        let recompiled = try await store.recompiledStatements().filter { $0.value > opened[$0.key, default: 0] }
        #expect(recompiled.isEmpty, "recompiled on their calls: \(recompiled)")
    }
}
