import Foundation
import TernCore
import TernNotificationService
import TernProtocol
import TernPush
import TernSDKTestKit
import TernTestSupport
import Testing

/// Issue 7's end-to-end test: the SDK subscribes, `tern send` sends through the real APNs client
/// to the APNs stand-in, the payload the stand-in received goes through the SDK's Notification
/// Service Extension processor, which reports the delivery, and the message's statistics count it.
@Suite(.serialized) struct PushDeliveryTests {
    static let token = String(repeating: "ab", count: 32)

    @Test func aSentPushIsReceivedProcessedByTheExtensionAndCountedDelivered() async throws {
        let peer = try await APNsPeer()
        defer { peer.stop() }
        let server = try await ServerProcess.start(arguments: [
            "--apns-production-url", peer.origin, "--provider-ca-file", peer.caFile,
        ])
        let admin = try await peer.configure(server)

        // The app: initialize, set the APNs token, subscribe.
        let directory = try TemporaryDirectory(prefix: "tern-e2e-push")
        let tern = FirstSubscriptionTests.makeSDK(directory)
        let stream = EventLog(tern)
        tern.setAppGroup(groupName: "group.tern.e2e")
        tern.initialization(
            configuration: TernConfiguration.Builder(apiUrl: server.apiURL.absoluteString).setRToken(server.rToken)
                .build())
        tern.push.token.setToken(provider: "ios-apns", pushToken: Self.token)
        tern.push.subscription.subscribe()
        try #require(await stream.next("pushSubscribeRequestSuccessful") != nil, "the subscription never landed")

        // The operator: tern send, waiting until every delivery has an outcome.
        let (status, output) = try await Self.ternSend(
            ["--title", "Sale", "--body", "30% off", "--resource", "\(server.resourceId)", "--json"], server: server)
        try #require(status == 0, "tern send: \(output)")
        let messageId = try #require(output.split(separator: "\n").first?.split(separator: " ").last.map(String.init))

        // APNs: the stand-in verified the provider token and received the payload.
        let received = try await peer.accepted()
        try #require(received.count == 1, "the stand-in accepted \(received.count) pushes")
        #expect(received[0]["token"] as? String == Self.token)
        let payload = try #require(received[0]["payload"] as? [String: Any])
        let userInfo = try JSONDecoder().decode(
            [String: JSONValue].self, from: try JSONSerialization.data(withJSONObject: payload))

        // The device: the extension processes the push and reports its delivery.
        let nse = TernNSE(tern: tern)
        nse.setAppGroup(groupName: "group.tern.e2e")
        #expect(nse.isTernPush(userInfo: payload.reduce(into: [AnyHashable: Any]()) { $0[$1.key] = $1.value }))
        let handled = HandledOnce()
        nse.handleNotification(content: NotificationContent(title: "Sale", body: "30% off", userInfo: userInfo)) {
            result in Task { await handled.record(result.ending) }
        }
        await nse.drain()
        #expect(await handled.endings.count == 1)

        // The server: the delivery event joins the message's statistics.
        var stats: [String: Any] = [:]
        for _ in 0..<200 {
            let answer = try await JSONHTTPClient().get(
                server.url("admin/messages/\(messageId)/stats"), headers: admin)
            stats = (try? JSONSerialization.jsonObject(with: answer.body) as? [String: Any]) ?? [:]
            if stats["delivered"] as? Int == 1 { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(stats["sent"] as? Int == 1, "\(stats)")
        #expect(stats["delivered"] as? Int == 1, "\(stats)")

        await tern.shutdown()
        await server.stop()
        directory.remove()
    }

    static func ternSend(_ arguments: [String], server: ServerProcess) async throws -> (Int32, String) {
        let run = try await TernCommand.run(
            ["send"] + arguments + ["--interval", "0.05", "--data", server.dataDirectory.path("data")])
        return (run.status, run.output + run.error)
    }
}

/// The extension's answers, collected across the handler's task.
actor HandledOnce {
    private(set) var endings: [NotificationServiceResult.Ending] = []

    func record(_ ending: NotificationServiceResult.Ending) {
        endings.append(ending)
    }
}
