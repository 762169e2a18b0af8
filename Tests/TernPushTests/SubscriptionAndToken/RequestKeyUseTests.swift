import Foundation
import TernHTTP
import TernProtocol
import TernPush
import TernSDKTestKit
import Testing

@Suite("the SDK's idempotency keys start with the time of the call")
struct RequestKeyUseTests {
    @Test @MainActor func subscribesAndPushReportsSendVersion7KeysOfTheirTime() async throws {
        let server = try ScriptedServer(fallback: ScriptedServer.ok(profileJSON: SubscriptionTests.profileJSON))
        defer { server.stop() }
        let sdk = try TestSDK(modules: ["TernPush"])
        let events = sdk.events
        sdk.configure(apiUrl: server.apiUrl)
        let before = UInt64(Date().timeIntervalSince1970 * 1000)
        sdk.tern.push.token.setToken(provider: "ios-apns", pushToken: "tok-1")
        let request = sdk.tern.push.subscription.subscribe()
        sdk.tern.push.pushEvents.deliveryEvent(from: PushEventsAPITests.userInfo("m-1"))
        let after = UInt64(Date().timeIntervalSince1970 * 1000)
        #expect(await events.first(PushModuleEvents.pushSubscribeRequestSuccessful) != nil)
        var reports: [HTTPRequest] = []
        for _ in 0..<100 where reports.isEmpty {
            _ = await sdk.tern.flush(timeout: 2)
            reports = await server.requests.filter { $0.path == "/api/v1/event/push" }
            if reports.isEmpty { try await Task.sleep(for: .milliseconds(20)) }
        }
        let subscribe = try #require(await server.requests.first { $0.path == "/api/v1/push/subscribe" })
        #expect(subscribe.header("Idempotency-Key") == request.id)
        for sent in [subscribe, try #require(reports.first)] {
            let key = try #require(sent.header("Idempotency-Key"))
            let uuid = try #require(UUID(uuidString: key), "\(sent.path): \(key)")
            #expect(uuid.uuid.6 >> 4 == 7, "\(sent.path): \(key)")
            let time = try #require(UInt64(key.replacingOccurrences(of: "-", with: "").prefix(12), radix: 16))
            #expect((before...after).contains(time), "\(sent.path): \(key) is not of the call's time")
        }
        await sdk.close()
    }
}
