import Foundation
import TernHTTP
import TernSDKTestKit
import Testing

@testable import TernPush

@Suite("push reports the notification permission with the subscription, and its changes alone")
struct PushPermissionTests {
    /// An SDK configured against `server` with a token, returned once initialized.
    @MainActor static func start(_ server: ScriptedServer) async throws -> sending TestSDK {
        let sdk = try TestSDK(modules: ["TernPush"])
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
        let sdk = try await Self.start(server)
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

    @Test @MainActor func reportPermissionSendsTheUpdateOnceTheDeviceIsSubscribed() async throws {
        let server = try ScriptedServer()
        defer { server.stop() }
        let sdk = try await Self.start(server)
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

    @Test @MainActor func aNameThatIsNoPermissionIsRefusedAndNothingIsKept() async throws {
        let server = try ScriptedServer()
        defer { server.stop() }
        let sdk = try await Self.start(server)
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
