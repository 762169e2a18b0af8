import Foundation
import TernProtocol
import TernTestSupport
import Testing

@testable import TernServer

/// Engagement conditions through the admin API and the delivery engine, on every backend: a message
/// goes out, one device opens it, and the previews and sends that name it (a resource audience's
/// filter, a project-wide segment) reach exactly the devices the condition names.
@Suite struct EngagementSendTests {
    @Test(arguments: StoreFactory.all)
    func aReminderGoesToThoseWhoDidNotOpenAndASegmentOfOpenersToTheOpener(factory: StoreFactory) async throws {
        let harness = try await DeliveryHarness.make(store: factory)
        defer { Task { await harness.finish() } }
        let tokens = (0..<4).map { "engaged-\($0)" }
        for token in tokens { try await harness.subscribe(token) }
        let first = try await harness.send(["type": "resource", "resource_id": harness.resourceId])
        try await harness.engine.drain()
        #expect(harness.sentTokens == tokens)
        // One device opens it (each device is its own anonymous person).
        let (pushId, openedToken) = try await harness.server.store.read { tx in
            let message = try #require(try tx.message(publicId: first))
            let row = try #require(try tx.deliveries(messageId: message.id, afterId: 0, limit: 10).last)
            return ("\(first).\(row.id)", try #require(try tx.subscription(id: row.subscriptionId)).token)
        }
        let report = try await harness.server.sdk(
            .eventPush, ["events": [["message_id": pushId, "type": "open", "time": 1]]], key: UUID().uuidString)
        try #require(report.status == 200, "event/push: \(report.errorText)")

        let notOpened: [String: Any] = ["message": first, "op": "not_opened"]
        let preview = try await harness.server.admin(
            "POST", "/audience/preview",
            json: [
                "project_id": harness.server.bootstrap.projectId, "resource_id": harness.resourceId,
                "filter": notOpened, "sample": 10,
            ])
        try #require(preview.status == 200, "preview: \(preview.errorText)")
        #expect(preview.json.int("count") == 3)

        let sentBefore = harness.sender.pushes.count
        let reminder = try await harness.send(
            ["type": "resource", "resource_id": harness.resourceId, "filter": notOpened], extra: ["title": "Reminder"])
        try await harness.engine.drain()
        let reminded = harness.sender.pushes.dropFirst(sentBefore).map(\.token).sorted()
        #expect(reminded == tokens.filter { $0 != openedToken }, "the reminder reached \(reminded)")
        // Its fan-out over, the lists it kept are gone.
        let keptLeft = try await harness.server.store.read { tx in
            let message = try #require(try tx.message(publicId: reminder))
            let kept = EngagementLists(
                .engagement(EngagementCondition(.message(first, .notOpened))), sending: message.id, now: 0)
            return try tx.audienceCount(
                AudienceScope(projectId: message.projectId, resourceId: nil), filter: kept.expression, now: 0)
        }
        #expect(keptLeft == 0)

        // An inbox message to those who did not open it: three inboxes (each device its own person),
        // its lists kept for its one transaction only; a message it cannot tell about is refused.
        let inbox = try await harness.server.admin(
            "POST", "/inbox",
            json: [
                "title": "Did you see it?",
                "audience": ["type": "resource", "resource_id": harness.resourceId, "filter": notOpened],
            ])
        #expect(inbox.status == 201, "\(inbox.errorText)")
        #expect(inbox.json["profiles"] as? Int == 3)
        let unknownInbox = try await harness.server.admin(
            "POST", "/inbox",
            json: [
                "title": "x",
                "audience": [
                    "type": "resource", "resource_id": harness.resourceId,
                    "filter": ["message": "m_missing", "op": "opened"],
                ],
            ])
        #expect(unknownInbox.status == 400, "\(unknownInbox.errorText)")
        #expect(unknownInbox.errorText.contains("m_missing"), "\(unknownInbox.errorText)")

        // A segment of the whole project (no resource) of those who opened it.
        let segment = try await harness.server.admin(
            "POST", "/segments",
            json: [
                "project_id": harness.server.bootstrap.projectId, "name": "openers",
                "filter": [
                    "and": [["message": first, "op": "opened"], ["field": "session_count", "op": "not_exists"]]
                ],
            ])
        try #require(segment.status == 201, "segment: \(segment.errorText)")
        let segmentId = try #require(segment.json["id"] as? NSNumber)
        let beforeSegment = harness.sender.pushes.count
        _ = try await harness.send(["type": "segment", "segment_id": segmentId])
        try await harness.engine.drain()
        #expect(harness.sender.pushes.dropFirst(beforeSegment).map(\.token) == [openedToken])

        // A filter naming a message that does not exist is refused, naming its path.
        let refused = try await harness.create([
            "title": "x",
            "audience": [
                "type": "resource", "resource_id": harness.resourceId,
                "filter": ["or": [["field": "language", "op": "exists"], ["message": "m_missing", "op": "sent"]]],
            ],
        ])
        #expect(refused.status == 400)
        #expect(refused.errorText.hasPrefix("audience.filter.or[1].message: no message has the id m_missing"))
    }
}
