import Foundation
import TernTestSupport
import Testing

@testable import TernServer

/// A real `tern serve` sending to an APNs-like peer is SIGKILLed with a batch in flight (the peer
/// holds one request unanswered): after the restart, everything recorded sent stays sent once, and
/// exactly the deliveries that were in flight are sent again.
@Suite(.serialized) struct SendRestartTests {
    static let devices = 200
    static let batch = 10
    static let hung = 150

    /// 64 hex digits, distinct for every number.
    static func token(_ number: Int) -> String { String(format: "%064x", number) }

    static func admin(_ server: ServerProcess) -> [String: String] {
        ["Authorization": "Bearer \(server.adminKey)", "Content-Type": "application/json"]
    }

    static func stats(_ server: ServerProcess, _ id: String) async throws -> [String: Any] {
        let answer = try await JSONHTTPClient().get(server.url("admin/messages/\(id)/stats"), headers: admin(server))
        return try JSONSerialization.jsonObject(with: answer.body) as? [String: Any] ?? [:]
    }

    @Test func sigkillWithABatchInFlightLosesNothingAndResendsOnlyThatBatch() async throws {
        let fixture = try await APNsFixture.start()
        defer { fixture.peer.stop() }
        let server = try await ServerProcess.start(arguments: [
            "--apns-production-url", fixture.peer.origin.absoluteString, "--provider-ca-file", fixture.peer.caFile,
            "--provider-timeout", "60", "--delivery-batch", "\(Self.batch)", "--delivery-concurrency", "2",
            "--delivery-lease", "5",
        ])
        defer { Task { await server.stop() } }
        let client = JSONHTTPClient()
        try await fixture.configure(server)
        for number in 1...Self.devices {
            let answer = try await client.post(
                server.url("push/subscribe"),
                json: ["time": 1, "provider": "ios-apns", "subscription_id": Self.token(number)],
                headers: ["X-Tern-RToken": server.rToken])
            try #require(answer.status == 200)
        }
        // The peer never answers this device's first push: its batch stays in flight.
        try await fixture.peer.script(Self.token(Self.hung), [["never": true]])

        let created = try await client.post(
            server.url("admin/messages"),
            json: ["title": "Hi", "body": "once", "audience": ["type": "resource", "resource_id": server.resourceId]],
            headers: Self.admin(server))
        try #require(created.status == 201, "\(created.text)")
        let id = try #require(
            (try JSONSerialization.jsonObject(with: created.body) as? [String: Any])?["id"] as? String)

        var before: [String: Any] = [:]
        for _ in 0..<1000 {
            before = try await Self.stats(server, id)
            if before["sent"] as? Int == Self.devices - Self.batch { break }
            try await Task.sleep(for: .milliseconds(10))
        }
        try #require(before["sent"] as? Int == Self.devices - Self.batch, "\(before)")
        try #require(before["sending"] as? Int == Self.batch, "\(before)")
        await server.kill(signal: SIGKILL)
        let logBefore = try await fixture.peer.log()
        #expect(logBefore.count == Self.devices, "every device was tried once before the kill")

        try await server.restart()
        var after: [String: Any] = [:]
        for _ in 0..<600 {
            after = try await Self.stats(server, id)
            if after["done"] as? Bool == true { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(after["done"] as? Bool == true, "\(after)")
        #expect(after["sent"] as? Int == Self.devices, "\(after)")
        #expect(after["failed"] as? Int == 0, "\(after)")

        let log = try await fixture.peer.log()
        #expect(log.count - logBefore.count == Self.batch, "only the batch in flight is sent again")
        var accepted: [String: Int] = [:]
        for entry in log where entry["status"] as? Int == 200 {
            accepted[entry["token"] as? String ?? "", default: 0] += 1
        }
        #expect(accepted.count == Self.devices, "every device got the push")
        let twice = accepted.filter { $0.value > 1 }
        #expect(twice.count == Self.batch - 1, "the hung push's batch-mates, answered but never recorded")
        #expect(accepted.values.allSatisfy { $0 <= 2 })
        #expect(accepted[Self.token(Self.hung)] == 1)
    }
}
