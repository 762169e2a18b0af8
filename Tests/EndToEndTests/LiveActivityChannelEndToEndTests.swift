import Foundation
import TernCore
import TernProtocol
import TernPush
import TernSDKTestKit
import TernTestSupport
import Testing

/// Broadcast channels from end to end: the operator makes a channel on a real `tern serve` (which
/// asks the APNs peer's channel management service), the SDK on Linux looks its id up by name for
/// its device, and a broadcast on it reaches the peer once with that id.
@Suite struct LiveActivityChannelEndToEndTests {
    static let token = "e2e-live-activity-channel-0a1b2c"

    @Test func theAppGetsTheChannelsIdByNameAndABroadcastCarriesIt() async throws {
        let peer = try await APNsPeer()
        defer { peer.stop() }
        let server = try await ServerProcess.start(arguments: [
            "--apns-production-url", peer.origin, "--apns-channels-production-url", peer.origin,
            "--provider-ca-file", peer.caFile,
        ])
        let admin = try await peer.configure(server)
        let channels = server.url("admin/projects/\(server.projectId)/live-activity-channels")
        let made = try await JSONHTTPClient().post(channels, json: ["name": "match-4471"], headers: admin)
        try #require(made.status == 201, "\(made.text)")
        let channelId = try #require(
            (try JSONSerialization.jsonObject(with: made.body) as? [String: Any])?["channel_id"] as? String)

        let directory = try TemporaryDirectory(prefix: "tern-e2e-channel")
        let tern = FirstSubscriptionTests.makeSDK(directory)
        let stream = EventLog(tern)
        tern.setAppGroup(groupName: "group.tern.e2e")
        tern.initialization(
            configuration: TernConfiguration.Builder(apiUrl: server.apiURL.absoluteString).setRToken(server.rToken)
                .build())
        tern.push.token.setToken(provider: "ios-apns", pushToken: Self.token)
        tern.push.subscription.subscribe()
        try #require(await stream.next("pushSubscribeRequestSuccessful") != nil, "the device never subscribed")

        #expect(try await tern.push.liveActivities.channelId(named: "match-4471") == channelId)
        do {
            _ = try await tern.push.liveActivities.channelId(named: "match-0000")
            Issue.record("a channel the project does not have answered an id")
        } catch let error as LiveActivityChannelError {
            if case .channelNotFound(let name, _) = error {
                #expect(name == "match-0000")
            } else {
                Issue.record("expected channelNotFound, got \(error)")
            }
        }

        let broadcast = try await JSONHTTPClient().post(
            channels.appendingPathComponent("match-4471/broadcasts"),
            json: ["event": "update", "content_state": ["home": 1, "away": 0]], headers: admin)
        #expect(broadcast.status == 200, "\(broadcast.text)")
        let received = try await peer.peer.log().filter { $0["payload"] != nil && $0["channel"] != nil }
        #expect(received.count == 1)
        #expect((received.first?["headers"] as? [String: String])?["apns-channel-id"] == channelId)

        await tern.shutdown()
        await server.stop()
        directory.remove()
    }
}
