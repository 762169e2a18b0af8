import Foundation
import TernProtocol
import TernTestSupport
import Testing

@testable import TernServer

/// `POST /api/v1/admin/messages/{message_id}/cancel`: the fan-out stops, what is not sent closes
/// unsent without reaching the provider, retries waiting for later close at once, and the figures
/// say so; a finished message cannot be cancelled.
@Suite struct MessageCancelTests {
    static let reason = "the message was cancelled before sending"

    @Test(arguments: StoreFactory.all)
    func aCancelledMessageStopsItsFanOutAndSendsNothingMore(factory: StoreFactory) async throws {
        var options = DeliveryEngine.Options()
        options.fanOut = FanOut(chunkSize: 2)
        let harness = try await DeliveryHarness.make(options: options, store: factory)
        defer { Task { await harness.finish() } }
        for index in 0..<5 { try await harness.subscribe("device-\(index)") }
        // The first chunk of two is written with the message; three devices are left to the fan-out.
        let request = try JSONDecoder().decode(
            MessageRequest.self,
            from: JSONSerialization.data(withJSONObject: [
                "title": "Wrong price", "audience": ["type": "resource", "resource_id": harness.resourceId],
            ]))
        let view = try await MessageService(store: harness.server.store, fanOut: FanOut(chunkSize: 2)).create(request)
        #expect(view.counts.queued == 2 && view.fanOutDone == false)

        let cancelled = try await harness.server.admin("POST", "/messages/\(view.id)/cancel")
        #expect(cancelled.status == 200, "\(cancelled.errorText)")
        let at = try #require(cancelled.json["cancelled_at"] as? Int64)
        #expect(cancelled.json["fan_out_done"] as? Bool == true)
        #expect(cancelled.json["done"] as? Bool == false, "two deliveries are still queued")

        try await harness.engine.drain()
        #expect(harness.sender.pushes.isEmpty, "nothing reached the provider: \(harness.sentTokens)")
        let stats = try await harness.stats(view.id)
        #expect(stats.int("targeted") == 2, "the fan-out wrote no more")
        #expect(stats.int("failed") == 2 && stats.int("queued") == 0 && stats.int("sent") == 0)
        #expect(stats["failed_by_reason"] as? [String: Int] == [Self.reason: 2])
        #expect(stats["done"] as? Bool == true)
        #expect(stats.int("cancelled_at") == at)

        // Again: the same answer, the same time.
        let again = try await harness.server.admin("POST", "/messages/\(view.id)/cancel")
        #expect(again.status == 200 && again.json["cancelled_at"] as? Int64 == at, "\(again.errorText)")
        let shown = try await harness.server.admin("GET", "/messages/\(view.id)")
        #expect(shown.json["cancelled_at"] as? Int64 == at)
    }

    /// A retry waiting for later comes due at once and closes; sent deliveries stay sent.
    @Test(arguments: StoreFactory.all)
    func aRetryWaitingForLaterClosesAtOnce(factory: StoreFactory) async throws {
        let harness = try await DeliveryHarness.make(store: factory)
        defer { Task { await harness.finish() } }
        for token in ["ok", "busy"] { try await harness.subscribe(token) }
        harness.sender.script("busy", [.retry(after: nil, reason: "TooManyRequests"), .sent(providerMessageId: "p")])
        let id = try await harness.send(["type": "resource", "resource_id": harness.resourceId])
        try await harness.engine.drain()
        var stats = try await harness.stats(id)
        #expect(stats.int("sent") == 1 && stats.int("queued") == 1, "\(stats)")

        #expect(try await harness.server.admin("POST", "/messages/\(id)/cancel").status == 200)
        try await harness.engine.drain()  // the clock has not moved: the retry's wait was cut short
        stats = try await harness.stats(id)
        #expect(stats.int("sent") == 1 && stats.int("failed") == 1 && stats.int("queued") == 0, "\(stats)")
        #expect(stats["failed_by_reason"] as? [String: Int] == [Self.reason: 1])
        #expect(stats["done"] as? Bool == true)
        #expect(harness.sentTokens == ["busy", "ok"], "busy was tried once, before the cancel")
    }

    /// A finished message answers 409 with what it did; an unknown one 404; a read key 403.
    @Test func onlyAMessageStillSendingCanBeCancelled() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.finish() } }
        try await harness.subscribe("device")
        let id = try await harness.send(["type": "resource", "resource_id": harness.resourceId])
        try await harness.engine.drain()
        let finished = try await harness.server.admin("POST", "/messages/\(id)/cancel")
        #expect(finished.status == 409)
        #expect(finished.errorText.contains("has finished sending (1 sent, 0 failed)"), "\(finished.errorText)")
        #expect(try await harness.server.admin("GET", "/messages/\(id)").json["cancelled_at"] == nil)
        #expect(try await harness.server.admin("POST", "/messages/m_nope/cancel").status == 404)

        let made = try await harness.server.admin(
            "POST", "/keys", json: ["project_id": harness.server.bootstrap.projectId, "role": "read", "name": "r"])
        let readKey = try #require(made.json["secret"] as? String)
        let other = try await harness.send(["type": "resource", "resource_id": harness.resourceId])
        let refused = await harness.server.send(
            "POST", "/api/v1/admin/messages/\(other)/cancel", headers: ["Authorization": "Bearer \(readKey)"])
        #expect(refused.status == 403, "\(refused.errorText)")
    }
}
