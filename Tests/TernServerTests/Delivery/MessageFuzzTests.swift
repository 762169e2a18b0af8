import Foundation
import Testing

@testable import TernServer

/// Generated message bodies never cause a 5xx: a refusal is always the envelope with a reason, and
/// whatever is accepted can be sent.
@Suite struct MessageFuzzTests {
    static let valid = #"""
        {"title":"Sale","subtitle":"Today","body":"30% off","media_url":"https://cdn.example.com/a.jpg",
         "buttons":[{"id":"shop","title":"Shop","action":"url","url":"https://example.com/s"},
                    {"id":"later","title":"Later","action":"dismiss"}],
         "click_url":"https://example.com/s","category":"news","badge":1,"sound":"default","thread_id":"t",
         "data":{"order":"A-1","n":3,"nested":{"a":[1,2]}},"priority":10,"time_to_live":3600,"collapse_id":"c",
         "push_type":"alert","track_delivery":true,"track_open":true,"topic":"com.example.app",
         "environment":"sandbox",
         "audience":{"type":"resource","resource_id":1,"categories":["news"],"fields":{"vip":true},
                     "tags":{"tier":"gold","beta":null}}}
        """#

    @Test func generatedMessagesNeverCauseA5xx() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.finish() } }
        try await harness.addCategory("news")
        try await harness.subscribe("device-1", cats: ["news": true], fields: ["vip": true])
        var generator = JSONFuzzer(seed: 0x5E4D)
        var statuses: [Int: Int] = [:]
        for index in 0..<1000 {
            let body = generator.body(mutating: Self.valid)
            let reply = await harness.server.send(
                "POST", "/api/v1/admin/messages", body: body,
                headers: [
                    "Authorization": "Bearer \(harness.server.bootstrap.adminKey)", "Content-Type": "application/json",
                ])
            statuses[reply.status, default: 0] += 1
            #expect(reply.status < 500, "#\(index): \(reply.errorText)")
            if reply.status >= 400 {
                #expect(reply.error == reply.status, "#\(index)")
                #expect(!reply.errorText.isEmpty, "#\(index) has no reason")
            }
        }
        #expect(statuses[201, default: 0] > 0, "no generated message was accepted: \(statuses)")
        #expect(statuses[400, default: 0] > 0)
        try await harness.engine.drain()
        let outcomes = try await harness.server.store.read { tx -> Int64 in
            var finished: Int64 = 0
            var id: Int64 = 1
            while let message = try tx.message(id: id) {
                let counts = try tx.deliveryCounts(messageId: message.id)
                #expect((counts[.queued] ?? 0) + (counts[.sending] ?? 0) == 0)
                finished += counts.values.reduce(0, +)
                id += 1
            }
            return finished
        }
        #expect(outcomes == Int64(harness.sender.pushes.count))
    }
}
