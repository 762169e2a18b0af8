import Foundation
import TernProtocol
import TernTestSupport
import Testing

@testable import TernServer

/// `send_at`: a scheduled message reads its audience and starts sending at its time, its time to
/// live counts from then, it can be cancelled before it goes, and a time too far ahead is refused.
@Suite struct MessageScheduleTests {
    @Test(arguments: StoreFactory.all)
    func aScheduledMessageWaitsForItsTimeAndReadsItsAudienceThen(factory: StoreFactory) async throws {
        let harness = try await DeliveryHarness.make(store: factory)
        defer { Task { await harness.finish() } }
        for token in ["early-1", "early-2"] { try await harness.subscribe(token) }
        let sendAt = ServerClock.milliseconds() + 60_000
        let reply = try await harness.create([
            "title": "Tomorrow's sale", "time_to_live": 30, "send_at": sendAt,
            "audience": ["type": "resource", "resource_id": harness.resourceId],
        ])
        try #require(reply.status == 201, "\(reply.errorText)")
        let id = try #require(reply.json["id"] as? String)
        #expect(reply.json["send_at"] as? Int64 == sendAt)
        #expect(reply.json["fan_out_done"] as? Bool == false)
        #expect((reply.json["counts"] as? [String: Any])?["total"] as? Int == 0, "no delivery before its time")

        try await harness.engine.drain()
        #expect(harness.sender.pushes.isEmpty)
        // A device that subscribes before the time is in the audience.
        try await harness.subscribe("late")
        harness.clock.advance(seconds: 61)
        try await harness.engine.drain()
        #expect(harness.sentTokens == ["early-1", "early-2", "late"])
        let stats = try await harness.stats(id)
        // Sent a second after its time with 30 s to live: not expired, as it would be counted from its making.
        #expect(stats.int("sent") == 3 && stats.int("failed") == 0, "\(stats)")
        #expect(stats["done"] as? Bool == true)
    }

    @Test(arguments: StoreFactory.all)
    func aScheduledMessageCancelledBeforeItsTimeIsNeverSent(factory: StoreFactory) async throws {
        let harness = try await DeliveryHarness.make(store: factory)
        defer { Task { await harness.finish() } }
        try await harness.subscribe("device")
        let id = try await harness.send(
            ["type": "resource", "resource_id": harness.resourceId],
            extra: ["send_at": ServerClock.milliseconds() + 3_600_000])
        let cancelled = try await harness.server.admin("POST", "/messages/\(id)/cancel")
        #expect(cancelled.status == 200 && cancelled.json["done"] as? Bool == true, "\(cancelled.errorText)")
        harness.clock.advance(seconds: 3_601)
        try await harness.engine.drain()
        #expect(harness.sender.pushes.isEmpty)
        let stats = try await harness.stats(id)
        #expect(stats.int("targeted") == 0 && stats["done"] as? Bool == true, "\(stats)")
    }

    @Test func aTimeTooFarAheadIsRefusedAndOnePastSendsNow() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.finish() } }
        try await harness.subscribe("device")
        let audience: [String: Any] = ["type": "resource", "resource_id": harness.resourceId]
        let far = try await harness.create([
            "title": "Hi", "audience": audience, "send_at": ServerClock.milliseconds() + 31 * 86_400_000,
        ])
        #expect(far.status == 400)
        #expect(far.errorText.contains("send_at must be at most 30 days ahead"), "\(far.errorText)")
        let negative = try await harness.create(["title": "Hi", "audience": audience, "send_at": -1])
        #expect(negative.status == 400 && negative.errorText.contains("ms since 1970"), "\(negative.errorText)")
        let past = try await harness.create(["title": "Hi", "audience": audience, "send_at": 1_000])
        #expect(past.status == 201, "\(past.errorText)")
        #expect(past.json["send_at"] == nil)
        #expect((past.json["counts"] as? [String: Any])?["total"] as? Int == 1, "written at once")
    }
}
