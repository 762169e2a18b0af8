import Foundation
import TernProtocol
import TernTestSupport
import Testing

@testable import TernServer

/// `--delivery-retention-days`: a finished message's rows per device go, a bounded step at a time;
/// its stats read the same afterwards, its deliveries page says why it is gone, and messages still
/// sending, still fanning out or younger than the limit keep everything.
@Suite struct DeliveryRetentionTests {
    static let day: Int64 = 24 * 3600 * 1000

    /// The message's rows per device, table by table (outcomes, runs, queue, leases, turn, reports).
    static func rowsLeft(_ store: any Store, messageId: Int64, publicId: String) async throws -> [Int64] {
        try await store.read { tx in
            try [
                "SELECT COUNT(*) FROM deliveries WHERE message_id = ?",
                "SELECT COUNT(*) FROM delivery_outcomes WHERE message_id = ?",
                "SELECT COUNT(*) FROM delivery_sent_runs WHERE message_id = ?",
                "SELECT COUNT(*) FROM delivery_queue WHERE message_id = ?",
                "SELECT COUNT(*) FROM delivery_leases WHERE message_id = ?",
                "SELECT COUNT(*) FROM delivery_turns WHERE message_id = ?",
            ].map { try integerRows(tx, $0, [messageId])[0][0] }
                + [try tx.pushEventCounts(messageIdPrefix: publicId + ".").values.reduce(0, +)]
        }
    }

    @Test(arguments: StoreFactory.all)
    func aFinishedMessagesRowsGoAndItsStatsStayTheSame(store factory: StoreFactory) async throws {
        let harness = try await DeliveryHarness.make(store: factory)
        defer { Task { await harness.finish() } }
        for token in ["d0", "d1", "d2", "d3", "d4"] { try await harness.subscribe(token) }
        harness.sender.script("d1", [.failed(reason: "BadTopic")])
        harness.sender.script("d2", [.retry(after: nil, reason: "TooManyRequests"), .sent(providerMessageId: "p2")])
        harness.sender.script("d3", [.failed(reason: "PayloadTooLarge")])
        let id = try await harness.send(["type": "resource", "resource_id": harness.resourceId])
        try await harness.engine.drain()
        harness.clock.advance(seconds: 120)
        try await harness.engine.drain()
        let rows = try await harness.deliveries(id)
        try #require(rows.count == 5)
        for (index, type) in ["delivery", "delivery", "open"].enumerated() {
            let pushId = "\(id).\(rows[index == 2 ? 0 : index].int("id"))"
            let reply = try await harness.server.sdk(
                .eventPush, ["events": [["message_id": pushId, "type": type, "time": 2000]]])
            try #require(reply.status == 200, "\(reply.errorText)")
        }
        var before = try await harness.stats(id)
        #expect(before["failed_by_reason"] as? [String: Int] == ["BadTopic": 1, "PayloadTooLarge": 1])
        #expect(before.int("delivered") == 2 && before.int("opened") == 1 && before["done"] as? Bool == true)
        #expect(before["deliveries_removed_at"] == nil)
        let message = try #require(try await harness.server.store.read { try $0.message(publicId: id) })
        #expect(
            try await Self.rowsLeft(harness.server.store, messageId: message.id, publicId: id) != [0, 0, 0, 0, 0, 0, 0])

        // A day and a minute later, with a one-day limit, two rows a step: several steps.
        let later = ServerClock.milliseconds() + Self.day + 60_000
        var retention = DeliveryRetention(
            store: harness.server.store, days: 1, logger: Logger(minimum: .error, sink: { _ in }), clock: { later })
        retention.stepRows = 2
        let pass = try await retention.pass()
        #expect(pass.messages == 1 && pass.rows == 8, "5 deliveries and 3 reports: \(pass)")
        #expect(
            try await Self.rowsLeft(harness.server.store, messageId: message.id, publicId: id) == [0, 0, 0, 0, 0, 0, 0])

        var after = try await harness.stats(id)
        #expect(after.int("deliveries_removed_at") == later)
        before["deliveries_removed_at"] = nil
        after["deliveries_removed_at"] = nil
        func text(_ json: [String: Any]) throws -> String {
            String(decoding: try JSONSerialization.data(withJSONObject: json, options: .sortedKeys), as: UTF8.self)
        }
        #expect(try text(after) == text(before))
        let page = try await harness.server.admin("GET", "/messages/\(id)/deliveries")
        #expect(page.status == 410)
        #expect(
            page.errorText.contains("--delivery-retention-days") && page.errorText.contains("/stats"),
            "\(page.errorText)")
        // A late report finds no delivery: counted nowhere, the figures stay.
        let late = try await harness.server.sdk(
            .eventPush, ["events": [["message_id": "\(id).\(rows[4].int("id"))", "type": "open", "time": 3000]]])
        #expect(late.status == 200)
        #expect(try await harness.stats(id).int("opened") == 1)
        #expect(try await retention.pass() == (0, 0))
    }

    /// Only messages whose sending is over and that are older than the limit are listed: not one
    /// still fanning out, not one with a delivery queued or leased, not one younger than the limit.
    @Test(arguments: StoreFactory.all)
    func onlyFinishedMessagesOlderThanTheLimitAreListed(factory: StoreFactory) async throws {
        let fixture = try await StoreFixture(factory)
        defer { Task { await fixture.finish() } }
        let targets = StoreSuiteDeliveryTests.targets(
            try await StoreSuiteDeliveryTests.subscriptions(fixture, count: 4))
        let (projectId, resourceId) = (fixture.project.id, fixture.resource.id)
        @Sendable func message(_ publicId: String, createdAt: Int64) -> StoredMessage {
            var message = StoreSuiteDeliveryTests.message(
                projectId: projectId, resourceId: resourceId, publicId: publicId)
            message.createdAt = createdAt
            return message
        }
        let (fanning, queued, leased, young) = try await fixture.store.write { tx in
            let fanning = try tx.insertMessage(message("m-fanning", createdAt: 10))
            let queued = try tx.insertMessage(message("m-queued", createdAt: 10))
            _ = try tx.insertDeliveries(messageId: queued.id, targets: Array(targets[0..<2]), now: 10)
            try tx.advanceFanOut(messageId: queued.id, cursor: 2, done: true, added: 2)
            let leased = try tx.insertMessage(message("m-leased", createdAt: 10))
            _ = try tx.insertLeasedDeliveries(
                messageId: leased.id, targets: Array(targets[2...]), now: 10, leaseUntil: 50)
            try tx.advanceFanOut(messageId: leased.id, cursor: 2, done: true, added: 2)
            let young = try tx.insertMessage(message("m-young", createdAt: 1_000))
            try tx.advanceFanOut(messageId: young.id, cursor: 0, done: true, added: 0)
            return (fanning, queued, leased, young)
        }
        #expect(try await fixture.store.read { try $0.messagesPastRetention(createdBefore: 500, limit: 10) }.isEmpty)

        // Every delivery answered: the two finished messages are listed, oldest first; the young
        // one and the one fanning out still are not.
        let claimed = try await fixture.store.write { try $0.claimDeliveries(limit: 10, now: 100, leaseUntil: 200) }
        try #require(claimed.count == 4)
        let updates = claimed.map {
            DeliveryUpdate(
                id: $0.id, messageId: $0.messageId, attempt: $0.attempt, status: .sent, reason: nil,
                providerMessageId: nil, dueAt: nil)
        }
        _ = try await fixture.store.write { try $0.updateDeliveries(updates, now: 110) }
        let listed = try await fixture.store.read { try $0.messagesPastRetention(createdBefore: 500, limit: 10) }
        #expect(listed == [queued.id, leased.id])
        #expect(!listed.contains(fanning.id) && !listed.contains(young.id))
        #expect(try await fixture.store.read { try $0.messageHistory(messageId: queued.id) } == nil)
        while case .removed = try await fixture.store.write({
            try $0.removeHistory(messageId: queued.id, limit: 1, now: 600)
        }) {}
        #expect(
            try await fixture.store.read { try $0.messagesPastRetention(createdBefore: 500, limit: 10) } == [leased.id])
        let kept = try await fixture.store.read { try $0.messageHistory(messageId: queued.id) }
        #expect(
            kept
                == MessageHistory(
                    failedByReason: [:], delivered: 0, opened: 0, converted: 0, removedAt: 600, finishedAt: 600,
                    // Both sent at 110 ms: the first hour since 1970.
                    timeline: [TimelinePoint(row: [0, 2, 0, 0, 0, 0])]))
        #expect(try await fixture.store.read { try $0.deliveryCounts(messageId: queued.id) } == [.sent: 2])
    }
}
