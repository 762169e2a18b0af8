import Foundation
import TernInbox
import TernPush
import TernSDKTestKit
import TernTestSupport
import Testing

/// When the inbox syncs by itself, against a real `tern serve`: at initialization for a signed-in
/// person, when the app comes back to the foreground (a session starts), and on a Tern push that
/// carries the inbox's change marker, handled by TernPush's notification manager (the app forwards
/// nothing; TernPush does not import TernInbox).
@Suite(.serialized) struct InboxSyncTests {
    /// A Tern push as the server sends one for a message with `inbox: true` (or without it).
    static func push(_ messageId: String, inbox: Bool) -> PushNotification {
        var userInfo: [String: JSONValue] = [
            "aps": .object(["alert": .object(["title": "News", "body": "In your inbox"])]),
            "tern": .object([
                "v": .int(1), "message_id": .string(messageId),
                "track": .object(["delivery": .bool(true), "open": .bool(true)]),
            ]),
        ]
        if inbox { userInfo[Inbox.pushKey] = .bool(true) }
        return PushNotification(
            identifier: "n-\(messageId)", content: NotificationContent(title: "News", body: "", userInfo: userInfo))
    }

    /// The next successful sync after event `after`, nil when none came within `timeout` seconds.
    static func nextSync(_ sdk: TestSDK, after: Int, timeout: TimeInterval = 15) async -> SeenEvent? {
        await sdk.events.first(where: { $0.name == "syncInboxRequestSuccessful" }, after: after, timeout: timeout)
    }

    static func syncs(_ sdk: TestSDK) -> Int {
        sdk.events.all.filter { $0.name == "syncInboxRequestSuccessful" }.count
    }

    @Test func aPushCarryingTheInboxChangeSyncsTheInboxThroughThePushModule() async throws {
        let server = try await RealServer.start()
        let eve = try await InboxEndToEndTests.person(server, "eve@example.com")
        let sdk = try TestSDK()
        sdk.configure(apiUrl: server.apiUrl, rToken: server.rToken, jwt: eve.jwt)
        let initial = try #require(await Self.nextSync(sdk, after: 0), "initialization syncs a signed-in inbox")
        #expect(await sdk.tern.inbox.messages().isEmpty)

        try await InboxEndToEndTests.put(server, eve.profileId, "Shown in the foreground")
        let manager = await sdk.tern.push.notificationManager
        _ = await withCheckedContinuation { continuation in
            Task { @MainActor in
                manager.willPresent(Self.push("m-1", inbox: true)) { continuation.resume(returning: $0) }
            }
        }
        let synced = try #require(await Self.nextSync(sdk, after: initial.index + 1), "the push synced the inbox")
        #expect(synced.function == "syncInbox")
        #expect(await sdk.tern.inbox.messages().map(\.title) == ["Shown in the foreground"])

        // A Tern push without the marker syncs nothing.
        let before = Self.syncs(sdk)
        try await InboxEndToEndTests.put(server, eve.profileId, "Not announced")
        _ = await withCheckedContinuation { continuation in
            Task { @MainActor in
                manager.willPresent(Self.push("m-2", inbox: false)) { continuation.resume(returning: $0) }
            }
        }
        await sdk.settle()
        try await Task.sleep(for: .milliseconds(300))
        #expect(Self.syncs(sdk) == before)
        #expect(await sdk.tern.inbox.messages().count == 1)

        // Tapped (it came while the app was away): the push's response syncs too.
        let seen = sdk.events.count
        await withCheckedContinuation { continuation in
            Task { @MainActor in
                manager.didReceive(PushNotificationResponse(notification: Self.push("m-3", inbox: true))) {
                    continuation.resume()
                }
            }
        }
        _ = try #require(await Self.nextSync(sdk, after: seen))
        #expect(await sdk.tern.inbox.messages().map(\.title) == ["Not announced", "Shown in the foreground"])
        await sdk.close()
        await server.stop()
    }

    @Test func theInboxSyncsAtStartAndEachTimeTheAppReturnsToTheForeground() async throws {
        let server = try await RealServer.start()
        let finn = try await InboxEndToEndTests.person(server, "finn@example.com")
        try await InboxEndToEndTests.put(server, finn.profileId, "Waiting before launch")
        let lifecycle = ManualAppLifecycle()
        let sdk = try TestSDK(lifecycle: lifecycle)
        sdk.configure(apiUrl: server.apiUrl, rToken: server.rToken, jwt: finn.jwt)
        let start = try #require(await Self.nextSync(sdk, after: 0))
        #expect(await sdk.tern.inbox.messages().map(\.title) == ["Waiting before launch"], "no sync() called")

        await lifecycle.set(.foreground)
        await sdk.settle()
        try await Task.sleep(for: .milliseconds(300))
        #expect(Self.syncs(sdk) == 1, "the launch's own foreground is initialization's sync")

        await lifecycle.set(.background)
        try await InboxEndToEndTests.put(server, finn.profileId, "Arrived while away")
        let away = sdk.events.count
        await lifecycle.set(.foreground)
        _ = try #require(await Self.nextSync(sdk, after: max(away, start.index + 1)), "a new session syncs")
        #expect(await sdk.tern.inbox.messages().map(\.title) == ["Arrived while away", "Waiting before launch"])
        await sdk.close()
        await server.stop()
    }
}
