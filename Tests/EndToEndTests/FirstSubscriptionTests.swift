import Foundation
import TernCore
import TernProtocol
import TernPush
import TernSDKTestKit
import TernSQLite
import TernTestSupport
import Testing

/// Issue 2's vertical slice: the SDK on Linux, through its SQLite outbox, to a real `tern serve`.
@Suite(.serialized) struct FirstSubscriptionTests {
    static let token = "e2e-apns-token-0f1e2d3c4b5a"

    static func makeSDK(_ directory: TemporaryDirectory) -> Tern {
        var environment = TernEnvironment.directory(
            directory.url, deviceInfo: HostDeviceInfo(model: "iPhone14,7", name: "iPhone", osVersion: "18.6.2"))
        environment.retryPolicy = RetryPolicy(baseDelay: 0.05, maxDelay: 0.5, budget: 120, maxRetryAfter: 2, jitter: 0)
        return Tern(environment: environment)
    }

    static func subscriptions(on server: ServerProcess, token: String) async throws -> [[String: Any]] {
        var components = URLComponents(
            url: server.rootURL("/api/v1/admin/subscriptions"), resolvingAgainstBaseURL: false)!
        components.queryItems = [
            URLQueryItem(name: "resource_id", value: String(server.resourceId)),
            URLQueryItem(name: "subscription_id", value: token),
            URLQueryItem(name: "provider", value: "ios-apns"),
        ]
        let answer = try await JSONHTTPClient().get(
            components.url!, headers: ["Authorization": "Bearer \(server.adminKey)"])
        #expect(answer.status == 200, "admin subscriptions lookup: \(answer.text)")
        return (answer.jsonArray ?? []).compactMap { $0 as? [String: Any] }
    }

    /// Rows still waiting in the SDK's outbox: the `outbox` table of the SQLite file under the app group.
    static func outboxRows(in directory: TemporaryDirectory) throws -> Int64? {
        let enumerator = FileManager.default.enumerator(atPath: directory.url.path)
        let files = (enumerator?.allObjects as? [String] ?? []).filter { $0.hasSuffix("tern.sqlite") }
        guard let file = files.first else { return nil }
        let db = try SQLiteDatabase(path: directory.url.appendingPathComponent(file).path)
        return try db.queryFirst("SELECT count(*) FROM outbox")?.int(0)
    }

    @Test func subscribeGoesThroughTheOutboxToTheServerAndReportsTheProfile() async throws {
        let server = try await ServerProcess.start()
        let directory = try TemporaryDirectory(prefix: "tern-e2e")
        let tern = Self.makeSDK(directory)
        let stream = EventLog(tern)

        tern.setAppGroup(groupName: "group.tern.e2e")
        tern.initialization(
            configuration: TernConfiguration.Builder(apiUrl: server.apiURL.absoluteString).setRToken(server.rToken)
                .build())
        tern.push.token.setToken(provider: "ios-apns", pushToken: Self.token)
        tern.push.subscription.subscribe(profileFields: ["_fname": "Ada"], customFields: ["developer": true])

        let event = try #require(
            await stream.next("pushSubscribeRequestSuccessful"), "no pushSubscribeRequestSuccessful")
        #expect(!event.isError)
        #expect(event.valueKeys == ["http_code", "error", "error_text", "profile"])
        #expect(event.httpCode == 200)
        #expect(event.error == 0)
        #expect(event.errorText == "")
        let profile = try #require(event.profile)
        #expect(profile.id?.isEmpty == false)
        let subscription = try #require(profile.subscription)
        #expect(subscription.subscriptionId == Self.token)
        #expect(subscription.provider == "ios-apns")
        #expect(subscription.status == "subscribed")
        #expect(subscription.fields?["developer"] == .bool(true))
        #expect(subscription.fields?["_os"] == "IOS")
        #expect(subscription.fields?["_device_model"] == "iPhone14,7")
        // A structured system field passes the server's scalars-only rule for custom fields.
        #expect(subscription.fields?["_os_ver"]?.objectValue?["raw"] == "18.6.2")

        // The request went through the SDK's SQLite outbox, which is empty once acknowledged.
        let waiting = try Self.outboxRows(in: directory)
        #expect(waiting == 0, "outbox rows left after the acknowledgement: \(String(describing: waiting))")

        // The server stored the profile and the subscription.
        let stored = try await Self.subscriptions(on: server, token: Self.token)
        #expect(stored.count == 1)
        #expect(stored.first?["status"] as? String == "subscribed")

        await tern.shutdown()
        await server.stop()
        directory.remove()
    }

    @Test func subscribeMadeWhileTheServerIsDownRetriesAndLandsOnce() async throws {
        // Learn the server's port and rToken, then take it down before the SDK sends anything.
        let server = try await ServerProcess.start()
        await server.kill(signal: SIGTERM)

        let directory = try TemporaryDirectory(prefix: "tern-e2e-retry")
        let tern = Self.makeSDK(directory)
        let stream = EventLog(tern)
        tern.setAppGroup(groupName: "group.tern.e2e")
        tern.initialization(
            configuration: TernConfiguration.Builder(apiUrl: server.apiURL.absoluteString).setRToken(server.rToken)
                .build())
        tern.push.token.setToken(provider: "ios-apns", pushToken: Self.token)
        tern.push.subscription.subscribe()

        let retry = try #require(
            await stream.next("pushSubscribeRequestFailed"), "no failure event while the server is down")
        #expect(retry.isRetry, "a network failure must be a RetryEvent")

        try await server.restart()
        let success = try #require(await stream.next("pushSubscribeRequestSuccessful"), "the subscription never landed")
        #expect(success.httpCode == 200)
        #expect(success.profile?.subscription?.subscriptionId == Self.token)

        let stored = try await Self.subscriptions(on: server, token: Self.token)
        #expect(stored.count == 1, "the server must hold exactly one subscription for the token, got \(stored.count)")

        await tern.shutdown()
        await server.stop()
        directory.remove()
    }
}
