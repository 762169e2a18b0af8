import Foundation
import TernCore
import TernNotificationService
import TernProtocol
import TernPush
import TernSDKTestKit
import TernTestSupport
import Testing

/// The extension never calls `initialization`: it reads the configuration the app saved in the
/// app-group database, so its delivery reports are written and sent.
@Suite(.serialized) struct ExtensionConfigurationTests {
    static let group = "group.tern.nse-config"

    struct MissingDelivery: Error, CustomStringConvertible {
        let description: String
    }

    static func payload(_ messageId: String) throws -> [String: JSONValue] {
        let tern = TernPushPayload(messageId: messageId, track: .init(delivery: true, open: true))
        let encoded = try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(tern))
        return [
            "aps": .object(["alert": .object(["title": "Hello", "body": "From the server"]), "mutable-content": 1]),
            "tern": encoded,
        ]
    }

    /// The server's record of the message's device events.
    static func pushEvents(_ server: ServerProcess, messageId: String) async throws -> [[String: Any]] {
        var components = URLComponents(
            url: server.rootURL("/api/v1/admin/push-events"), resolvingAgainstBaseURL: false)!
        components.queryItems = [URLQueryItem(name: "message_id", value: messageId)]
        let answer = try await JSONHTTPClient().get(
            components.url!, headers: ["Authorization": "Bearer \(server.adminKey)"])
        #expect(answer.status == 200, "push-events lookup: \(answer.text)")
        return (answer.jsonArray ?? []).compactMap { $0 as? [String: Any] }
    }

    /// The push id of a real delivery to `token` (a message to that token, sent by the admin API):
    /// the server counts a device's delivery report only for a delivery it made to that device.
    static func deliveredPushId(_ server: ServerProcess, token: String) async throws -> String {
        let client = JSONHTTPClient()
        let admin = ["Authorization": "Bearer \(server.adminKey)"]
        let subscribed = try await client.post(
            server.url("push/subscribe"),
            json: ["time": 1, "provider": "ios-apns", "subscription_id": token, "sync": true] as [String: Any],
            headers: [Wire.rTokenHeader: server.rToken])
        try #require(subscribed.status == 200, "\(subscribed.text)")
        let created = try await client.post(
            server.url("admin/messages"),
            json: [
                "title": "Hello", "body": "From the server",
                "audience": ["type": "token", "provider": "ios-apns", "token": token],
            ] as [String: Any], headers: admin)
        try #require(created.status == 201, "\(created.text)")
        let messageId = try #require(created.json?["id"] as? String)
        for _ in 0..<200 {
            let rows = try await client.get(server.url("admin/messages/\(messageId)/deliveries"), headers: admin)
            if let id = (rows.jsonArray?.first as? [String: Any])?["id"] as? Int { return "\(messageId).\(id)" }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw MissingDelivery(description: "no delivery of \(messageId) to \(token)")
    }

    @Test func anExtensionThatNeverInitializesSendsItsDeliveryWithTheAppsConfiguration() async throws {
        let server = try await ServerProcess.start()
        let directory = try TemporaryDirectory(prefix: "tern-e2e-nse-config")

        // The app: initializes the SDK in the app group, then goes away.
        let app = FirstSubscriptionTests.makeSDK(directory)
        let appEvents = EventLog(app)
        app.setAppGroup(groupName: Self.group)
        app.initialization(
            configuration: TernConfiguration.Builder(apiUrl: server.apiURL.absoluteString).setRToken(server.rToken)
                .build())
        app.push.token.setToken(provider: "ios-apns", pushToken: "nse-config-token")
        #expect(await appEvents.next("pushProviderSet") != nil)
        await app.shutdown()

        // The extension: a separate SDK instance on the same container, no initialization call.
        let extensionSDK = FirstSubscriptionTests.makeSDK(directory)
        let nse = TernNSE(tern: extensionSDK)
        nse.setAppGroup(groupName: Self.group)
        let handled = HandledOnce()
        let pushId = try await Self.deliveredPushId(server, token: "nse-config-token")
        nse.handleNotification(content: NotificationContent(title: "Hello", userInfo: try Self.payload(pushId))) {
            result in Task { await handled.record(result.ending) }
        }
        await nse.drain()
        #expect(await handled.endings.count == 1)
        #expect(await extensionSDK.isConfigured)

        var events: [[String: Any]] = []
        for _ in 0..<100 where events.isEmpty {
            _ = await extensionSDK.flush(timeout: 1)
            events = try await Self.pushEvents(server, messageId: pushId)
            if events.isEmpty { try await Task.sleep(for: .milliseconds(50)) }
        }
        #expect(events.count == 1)
        #expect(events.first?["type"] as? String == "delivery")

        await extensionSDK.shutdown()
        await server.stop()
        directory.remove()
    }

    /// The app's consent as the extension sees it: off in the configuration only, or saved off.
    enum Consent: CaseIterable { case configurationOff, savedOptOut }

    @Test(arguments: Consent.allCases)
    func withoutConsentTheExtensionReportsNothing(_ consent: Consent) async throws {
        let server = try await ServerProcess.start()
        let directory = try TemporaryDirectory(prefix: "tern-e2e-nse-consent")

        let app = FirstSubscriptionTests.makeSDK(directory)
        let appEvents = EventLog(app)
        app.setAppGroup(groupName: Self.group)
        if consent == .savedOptOut { app.setCollectionEnabled(false) }
        app.initialization(
            configuration: TernConfiguration.Builder(
                apiUrl: server.apiURL.absoluteString, rToken: server.rToken,
                collectionEnabled: consent == .savedOptOut
            ).build())
        #expect(await appEvents.next("configSet") != nil)
        await app.flushQueues()
        await app.shutdown()

        let extensionSDK = FirstSubscriptionTests.makeSDK(directory)
        let extensionEvents = EventLog(extensionSDK)
        let nse = TernNSE(tern: extensionSDK)
        nse.setAppGroup(groupName: Self.group)
        let handled = HandledOnce()
        nse.handleNotification(content: NotificationContent(title: "Hello", userInfo: try Self.payload("m-consent"))) {
            result in Task { await handled.record(result.ending) }
        }
        await nse.drain()
        // The push is still shown, and said so; its delivery is not collected.
        #expect(await handled.endings.count == 1)
        #expect(await extensionEvents.next("pushReceive", timeout: 5) != nil)
        #expect(await extensionEvents.next("collectionDisabled", timeout: 5) != nil)
        #expect(await extensionSDK.isCollectionEnabled == false)
        _ = await extensionSDK.flush(timeout: 1)
        #expect(await extensionSDK.outboxStatistics()?.enqueuedTotal == 0)
        #expect(try await Self.pushEvents(server, messageId: "m-consent").isEmpty)

        await extensionSDK.shutdown()
        await server.stop()
        directory.remove()
    }

    @Test func beforeTheAppInitializesTheExtensionSaysSoAndInitializesOnALaterPush() async throws {
        let server = try await ServerProcess.start()
        let directory = try TemporaryDirectory(prefix: "tern-e2e-nse-waits")

        // The extension runs before the app ever initialized the SDK.
        let extensionSDK = FirstSubscriptionTests.makeSDK(directory)
        let extensionEvents = EventLog(extensionSDK)
        var ports = NSEDependencies.platformDefault(for: extensionSDK)
        ports.configuration.deliveryReportTimeout = .milliseconds(200)
        let nse = TernNSE(tern: extensionSDK, dependencies: ports)
        nse.setAppGroup(groupName: Self.group)
        let earlier = try await Self.deliveredPushId(server, token: "nse-config-token-2")
        let later = try await Self.deliveredPushId(server, token: "nse-config-token-2")
        nse.handleNotification(content: NotificationContent(userInfo: try Self.payload(earlier))) { _ in }
        await nse.drain()
        let missing = try #require(await extensionEvents.next("configIsNotSet"))
        #expect(missing.isError)
        #expect(!(await extensionSDK.isConfigured))

        // The app starts later, and the next push finds its configuration.
        let app = FirstSubscriptionTests.makeSDK(directory)
        app.setAppGroup(groupName: Self.group)
        app.initialization(
            configuration: TernConfiguration.Builder(apiUrl: server.apiURL.absoluteString).setRToken(server.rToken)
                .build())
        app.push.token.setToken(provider: "ios-apns", pushToken: "nse-config-token-2")
        await app.flushQueues()
        nse.handleNotification(content: NotificationContent(userInfo: try Self.payload(later))) { _ in }
        await nse.drain()
        #expect(await extensionSDK.isConfigured)

        var events: [[String: Any]] = []
        for _ in 0..<100 where events.isEmpty {
            _ = await extensionSDK.flush(timeout: 1)
            events = try await Self.pushEvents(server, messageId: later)
            if events.isEmpty { try await Task.sleep(for: .milliseconds(50)) }
        }
        #expect(events.count == 1)
        // The earlier report, held while the extension could not initialize, went with it.
        #expect(try await Self.pushEvents(server, messageId: earlier).count == 1)

        await app.shutdown()
        await extensionSDK.shutdown()
        await server.stop()
        directory.remove()
    }
}
