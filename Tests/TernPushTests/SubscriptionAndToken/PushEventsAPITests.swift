import Foundation
import TernHTTP
import TernSDKTestKit
import Testing

@testable import TernPush

@Suite("push.pushEvents reports deliveries and opens the app hands it")
struct PushEventsAPITests {
    static func userInfo(_ messageId: String, delivery: Bool = true, open: Bool = true) -> [AnyHashable: Any] {
        [
            "aps": ["alert": ["title": "Sale", "body": "30% off"]],
            "tern": ["v": 1, "message_id": messageId, "track": ["delivery": delivery, "open": open]],
        ]
    }

    /// The `event/push` items the server received, as (message id, type).
    static func items(_ server: ScriptedServer) async -> [String] {
        var out: [String] = []
        for request in await server.requests where request.path == "/api/v1/event/push" {
            for case let item as [String: Any] in jsonObject(request.body)["events"] as? [Any] ?? [] {
                out.append("\(item["message_id"] as? String ?? "?") \(item["type"] as? String ?? "?")")
            }
        }
        return out.sorted()
    }

    @Test @MainActor func anOpenIsReportedOnceHoweverOftenTheAppReportsIt() async throws {
        let server = try ScriptedServer()
        defer { server.stop() }
        let sdk = try TestSDK(modules: ["TernPush"])
        let events = sdk.events
        sdk.configure(apiUrl: server.apiUrl)
        let pushEvents = sdk.tern.push.pushEvents
        for _ in 0..<3 { pushEvents.openEvent(from: Self.userInfo("m-1")) }
        pushEvents.deliveryEvent(
            from: NotificationContent(userInfo: ["tern": ["message_id": "m-2", "track": ["delivery": true]]]))
        var items: [String] = []
        for _ in 0..<100 where items.count < 2 {
            _ = await sdk.tern.flush(timeout: 2)
            items = await Self.items(server)
            if items.count < 2 { try await Task.sleep(for: .milliseconds(20)) }
        }
        #expect(items == ["m-1 open", "m-2 delivery"])
        #expect(await events.first(PushModuleEvents.pushEventRequestSuccessful) != nil)
        await sdk.close()
    }

    @Test @MainActor func aPushThatIsNotTernsOrDoesNotAskForTheEventIsRefusedWithAReason() async throws {
        let sdk = try TestSDK(modules: ["TernPush"])
        let events = sdk.events
        sdk.configure(apiUrl: "http://127.0.0.1:9/api/v1")
        sdk.tern.push.pushEvents.deliveryEvent(from: ["aps": ["alert": "not ours"]])
        sdk.tern.push.pushEvents.openEvent(from: Self.userInfo("m-3", open: false))
        sdk.tern.push.pushEvents.openEvent(from: ["tern": ["track": ["open": true]]])
        let foreign = try #require(await events.first(PushModuleEvents.errorHandleUserInfo))
        #expect(foreign.function == "deliveryEvent")
        #expect((foreign.value?["reason"] as? String)?.contains("no tern object") == true)
        let untracked = try #require(await events.first(PushModuleEvents.invalidPushEventRequestData))
        #expect((untracked.value?["reason"] as? String)?.contains("m-3") == true)
        #expect(await events.first(PushModuleEvents.uidIsNil)?.function == "openEvent")
        await sdk.close()
    }

    @Test func theDecisionFollowsThePayload() {
        let parser = PushPayloadParser()
        #expect(EventAPI.decide(.open, parser.parse(userInfo: Self.userInfo("m-9"))) == .report(messageId: "m-9"))
        #expect(
            EventAPI.decide(.delivery, parser.parse(userInfo: Self.userInfo("m-9", delivery: false)))
                == .refuse(
                    .invalidPushEventRequestData,
                    reason: "message m-9 does not ask for delivery reports (tern.track.delivery)"))
        #expect(
            EventAPI.decide(.delivery, parser.parse(userInfo: ["aps": [:]]))
                == .refuse(.errorHandleUserInfo, reason: "not a Tern push: its userInfo has no tern object"))
    }
}
