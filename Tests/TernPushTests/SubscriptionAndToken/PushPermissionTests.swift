import Foundation
import TernHTTP
import TernSDKTestKit
import TernTestSupport
import Testing

@testable import TernPush

/// The OS's answer as a test sets it, counting how often the SDK asked.
actor FakePermissionReader: PushPermissionReading {
    private var permission: PushPermission?
    private(set) var reads = 0

    init(_ permission: PushPermission?) {
        self.permission = permission
    }

    func set(_ permission: PushPermission?) {
        self.permission = permission
    }

    func currentPermission() -> PushPermission? {
        reads += 1
        return permission
    }

    /// Returns once the SDK asked `count` times in all; false after ten seconds.
    func waitForReads(_ count: Int) async -> Bool {
        for _ in 0..<1000 where reads < count {
            try? await Task.sleep(for: .milliseconds(10))
        }
        return reads >= count
    }
}

@Suite("push reports the notification permission with the subscription, and its changes alone")
struct PushPermissionTests {
    /// An SDK with `reader` as the OS and `lifecycle`, configured against `server` with a token,
    /// returned once initialized (push follows the lifecycle from then on).
    @MainActor static func start(
        _ server: ScriptedServer, reader: FakePermissionReader?, lifecycle: ManualAppLifecycle = ManualAppLifecycle(),
        directory: TemporaryDirectory? = nil
    ) async throws -> sending TestSDK {
        let sdk = try TestSDK(directory: directory, lifecycle: lifecycle, modules: ["TernPush"])
        await sdk.tern.core.permissionMonitor().setReader(reader)
        sdk.configure(apiUrl: server.apiUrl)
        sdk.tern.push.token.setToken(provider: "ios-apns", pushToken: "tok-1")
        _ = try #require(await sdk.tern.core.readyCore("test", timeout: 10))
        return sdk
    }

    /// The `_push_permission` of each `push/update` the server got, in order.
    static func permissionsSent(_ server: ScriptedServer) async -> [String?] {
        await server.requests.filter { $0.path == "/api/v1/push/update" }.map {
            (jsonObject($0.body)["custom_fields"] as? [String: Any])?[PushPermission.fieldKey] as? String
        }
    }

    @Test @MainActor func subscribeAndTokenUpdateCarryThePermissionKnownBeforeTheSubscription() async throws {
        let server = try ScriptedServer()
        defer { server.stop() }
        let sdk = try await Self.start(server, reader: nil)
        let events = sdk.events
        sdk.tern.push.reportPermission(.provisional)
        sdk.tern.push.subscription.subscribe()
        sdk.tern.push.token.setToken(provider: "ios-apns", pushToken: "tok-2")
        _ = try #require(await events.first(PushModuleEvents.tokenUpdateRequestSuccessful))
        let requests = await server.requests
        // Nothing before the subscription: the subscribe carries it, and the token update too.
        try #require(requests.map(\.path) == ["/api/v1/push/subscribe", "/api/v1/push/update"])
        let subscribe = try #require(jsonObject(requests[0].body)["custom_fields"] as? [String: Any])
        #expect(subscribe["_push_permission"] as? String == "provisional")
        #expect(subscribe["_os"] as? String == "IOS", "beside the other system fields")
        let update = try #require(jsonObject(requests[1].body)["custom_fields"] as? [String: Any])
        #expect(update["_push_permission"] as? String == "provisional")
        #expect(events.all(PushModuleEvents.permissionUpdateRequestSuccessful).isEmpty)

        // The server has it: the same value again sends nothing, a new one a single update.
        sdk.tern.push.reportPermission(.provisional)
        sdk.tern.push.reportPermission(.denied)
        _ = try #require(await events.first(PushModuleEvents.permissionUpdateRequestSuccessful))
        #expect(await Self.permissionsSent(server) == ["provisional", "denied"])
        await sdk.close()
    }

    @Test @MainActor func aChangeReadInTheForegroundSendsOneUpdateAndTheSameValueNothing() async throws {
        let server = try ScriptedServer()
        defer { server.stop() }
        let reader = FakePermissionReader(.authorized)
        let lifecycle = ManualAppLifecycle()
        let sdk = try await Self.start(server, reader: reader, lifecycle: lifecycle)
        let events = sdk.events
        sdk.tern.push.subscription.subscribe()
        _ = try #require(await events.first(PushModuleEvents.pushSubscribeRequestSuccessful))

        await lifecycle.set(.foreground)
        let first = try #require(await events.first(PushModuleEvents.permissionUpdateRequestSuccessful))
        #expect(first.function == "permissionRefresh")
        await lifecycle.set(.background)
        await lifecycle.set(.foreground)
        #expect(await reader.waitForReads(2))
        // The person turns notifications off in Settings and comes back.
        await reader.set(.denied)
        await lifecycle.set(.background)
        await lifecycle.set(.foreground)
        #expect(await events.count(PushModuleEvents.permissionUpdateRequestSuccessful, reaches: 2))

        // Readings apply in order: an update for the second (unchanged) one would come before `denied`.
        #expect(await Self.permissionsSent(server) == ["authorized", "denied"])
        let update = try #require(await server.requests.last { $0.path == "/api/v1/push/update" })
        let body = jsonObject(update.body)
        #expect(body["old_provider"] as? String == "ios-apns" && body["old_subscription_id"] as? String == "tok-1")
        #expect(body["provider"] as? String == "ios-apns" && body["subscription_id"] as? String == "tok-1")
        await sdk.close()
    }

    @Test @MainActor func theSameValueAfterARelaunchSendsNothing() async throws {
        let server = try ScriptedServer()
        defer { server.stop() }
        let firstLifecycle = ManualAppLifecycle()
        let sdk = try await Self.start(server, reader: FakePermissionReader(.authorized), lifecycle: firstLifecycle)
        sdk.tern.push.subscription.subscribe()
        await firstLifecycle.set(.foreground)
        _ = try #require(await sdk.events.first(PushModuleEvents.permissionUpdateRequestSuccessful))
        await sdk.close()

        let reader = FakePermissionReader(.authorized)
        let lifecycle = ManualAppLifecycle()
        let again = try await Self.start(server, reader: reader, lifecycle: lifecycle, directory: sdk.directory)
        await lifecycle.set(.foreground)
        #expect(await reader.waitForReads(1))
        await reader.set(.denied)
        await lifecycle.set(.background)
        await lifecycle.set(.foreground)
        _ = try #require(await again.events.first(PushModuleEvents.permissionUpdateRequestSuccessful))
        #expect(await Self.permissionsSent(server) == ["authorized", "denied"])
        await again.close()
    }

    @Test @MainActor func reportPermissionSendsTheUpdateOnceTheDeviceIsSubscribed() async throws {
        let server = try ScriptedServer()
        defer { server.stop() }
        let sdk = try await Self.start(server, reader: nil)
        let events = sdk.events
        sdk.tern.push.subscription.subscribe()
        sdk.tern.push.reportPermission(.denied)
        let success = try #require(await events.first(PushModuleEvents.permissionUpdateRequestSuccessful))
        #expect(success.function == "reportPermission")
        #expect(success.message == "successful request: push/update")
        #expect(await Self.permissionsSent(server) == ["denied"])
        let paths = await server.requests.map(\.path)
        #expect(paths == ["/api/v1/push/subscribe", "/api/v1/push/update"])
        await sdk.close()
    }

    @Test @MainActor func thePromptsAnswerIsReadAndReported() async throws {
        let server = try ScriptedServer()
        defer { server.stop() }
        let sdk = try await Self.start(server, reader: FakePermissionReader(.provisional))
        sdk.tern.push.subscription.subscribe()
        // What `registerForPushNotifications(for:)` calls once the person answered.
        let answered = try #require(sdk.tern.push.notificationManager.permissionAnswered)
        answered()
        let success = try #require(await sdk.events.first(PushModuleEvents.permissionUpdateRequestSuccessful))
        #expect(success.function == "registerForPushNotifications")
        #expect(await Self.permissionsSent(server) == ["provisional"])
        await sdk.close()
    }

    @Test @MainActor func aNameThatIsNoPermissionIsRefusedAndNothingIsKept() async throws {
        let server = try ScriptedServer()
        defer { server.stop() }
        let sdk = try await Self.start(server, reader: nil)
        let events = sdk.events
        sdk.tern.push.reportPermission("allowed")
        let refused = try #require(await events.first(PushModuleEvents.invalidPushPermission))
        #expect(refused is ErrorEvent)
        #expect(refused.function == "reportPermission")
        #expect(
            refused.value?["reason"] as? String
                == "\"allowed\" is not a push permission: use one of authorized, provisional, ephemeral, denied, "
                + "not_determined")
        sdk.tern.push.reportPermission("not_determined")
        sdk.tern.push.subscription.subscribe()
        _ = try #require(await events.first(PushModuleEvents.pushSubscribeRequestSuccessful))
        let subscribe = try #require(await server.requests.first)
        let fields = jsonObject(subscribe.body)["custom_fields"] as? [String: Any]
        #expect(fields?["_push_permission"] as? String == "not_determined", "the wire name is taken, the bad one not")
        await sdk.close()
    }
}
