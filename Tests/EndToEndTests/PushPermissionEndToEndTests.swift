import Foundation
import TernCore
import TernSDKTestKit
import TernTestSupport
import Testing

@testable import TernPush

/// The OS's notification permission as the test sets it (Linux has no notification center).
actor SettingsPermission: PushPermissionReading {
    private var permission: PushPermission

    init(_ permission: PushPermission) {
        self.permission = permission
    }

    func set(_ permission: PushPermission) {
        self.permission = permission
    }

    func currentPermission() -> PushPermission? {
        permission
    }
}

/// The SDK on Linux tells a real `tern serve` the notification permission, and the server keeps it
/// in the subscription's fields, where an audience's `fields` filter reads it.
@Suite(.serialized) struct PushPermissionEndToEndTests {
    static let token = "e2e-apns-token-permission-7a6b"

    /// The subscription's `_push_permission` as the server stores it, once it equals `expected`
    /// (read again for up to ten seconds); the last value read otherwise.
    static func storedPermission(_ server: ServerProcess, becomes expected: String) async throws -> String? {
        var stored: String?
        for _ in 0..<200 {
            let found = try await FirstSubscriptionTests.subscriptions(on: server, token: Self.token)
            stored = (found.first?["fields"] as? [String: Any])?[PushPermission.fieldKey] as? String
            if stored == expected { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        return stored
    }

    @Test @MainActor func theServerKeepsThePermissionTheSubscribeCarriedAndItsChange() async throws {
        let server = try await ServerProcess.start()
        let lifecycle = ManualAppLifecycle()
        let sdk = try TestSDK(lifecycle: lifecycle, modules: ["TernPush"])
        let settings = SettingsPermission(.authorized)
        await sdk.tern.core.permissionMonitor().setReader(settings)
        sdk.configure(apiUrl: server.apiURL.absoluteString, rToken: server.rToken)
        sdk.tern.push.token.setToken(provider: "ios-apns", pushToken: Self.token)
        let ready = try #require(await sdk.tern.core.readyCore("test", timeout: 10))

        // The launch's foreground reads `authorized` before any subscription: the subscribe carries it.
        await lifecycle.set(.foreground)
        for _ in 0..<200 where await PermissionChange.current(ready) == nil {
            try await Task.sleep(for: .milliseconds(50))
        }
        sdk.tern.push.subscription.subscribe()
        let subscribed = try #require(await sdk.events.first(PushModuleEvents.pushSubscribeRequestSuccessful))
        #expect(subscribed.value?["http_code"] as? Int == 200)
        #expect(try await Self.storedPermission(server, becomes: "authorized") == "authorized")

        // The person turns notifications off in Settings and comes back to the app.
        await settings.set(.denied)
        await lifecycle.set(.background)
        await lifecycle.set(.foreground)
        let updated = try #require(await sdk.events.first(PushModuleEvents.permissionUpdateRequestSuccessful))
        #expect(updated.value?["http_code"] as? Int == 200)
        #expect(sdk.events.all(PushModuleEvents.permissionUpdateRequestSuccessful).count == 1, "the change alone")
        #expect(try await Self.storedPermission(server, becomes: "denied") == "denied")
        let stored = try await FirstSubscriptionTests.subscriptions(on: server, token: Self.token)
        #expect(stored.count == 1 && stored.first?["status"] as? String == "subscribed", "the same subscription")
        #expect((stored.first?["fields"] as? [String: Any])?["_os"] as? String == "IOS", "the other fields stay")

        await sdk.close()
        await server.stop()
        sdk.directory.remove()
    }
}
