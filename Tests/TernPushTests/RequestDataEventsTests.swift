import Foundation
import TernCore
import TernNotificationService
import TernProtocol
import TernSDKTestKit
import TernTestSupport
import Testing

@testable import TernPush

/// The push events of the reference that only a failure or the extension raises: `pushIsPosted`
/// where the extension hands a Tern push to the system, `pushEventRequestDataIsNil` and
/// `pushStatusRequestDataIsNil` where an `event/push` or `push/status` request's data cannot be made.
@Suite struct RequestDataEventsTests {
    struct Unencodable: Error {}
    static let failing = RequestEncoding { _ in throw Unencodable() }

    static func paths(_ server: ScriptedServer, _ suffix: String) async -> [String] {
        await server.requests.map(\.path).filter { $0.hasSuffix(suffix) }
    }

    @Test func aStatusQueryWithoutItsDataIsPushStatusRequestDataIsNilAndSendsNothing() async throws {
        let server = try ScriptedServer(
            fallback: ScriptedServer.ok(profileJSON: #"{"id":"p1","subscription":{"status":"subscribed"}}"#))
        defer { server.stop() }
        let sdk = try TestSDK()
        sdk.configure(apiUrl: server.apiUrl)
        sdk.tern.push.token.setToken(provider: "ios-apns", pushToken: "tok-1")
        var broken = sdk.tern.push.subscription
        broken.encoding = Self.failing
        let answer = await withCheckedContinuation { continuation in
            broken.latest { continuation.resume(returning: $0) }
        }
        #expect(answer == nil, "the completion hears that no answer came")
        let event = try #require(await sdk.events.first("pushStatusRequestDataIsNil"))
        #expect(event.isError && event.module == "push" && event.function == "latest")
        _ = await sdk.tern.flush(timeout: 5)
        #expect(await Self.paths(server, "/push/status").isEmpty, "nothing was queued")

        let working = await withCheckedContinuation { continuation in
            sdk.tern.push.subscription.latest { continuation.resume(returning: $0) }
        }
        #expect(working?.httpCode == 200)
        #expect(sdk.events.all.filter { $0.name == "pushStatusRequestDataIsNil" }.count == 1)
        await sdk.close()
    }

    @Test func aPushEventWithoutItsDataIsPushEventRequestDataIsNilAndSendsNothing() async throws {
        let server = try ScriptedServer()
        defer { server.stop() }
        let sdk = try TestSDK()
        sdk.configure(apiUrl: server.apiUrl)
        var broken = OutboxPushEventReporter(core: sdk.tern.core)
        broken.encoding = Self.failing
        await broken.reportOpen(messageId: "m-broken")
        let event = try #require(await sdk.events.first("pushEventRequestDataIsNil"))
        #expect(event.isError && event.function == "openEvent")
        broken.queueDelivery(messageId: "m-broken")
        #expect(
            await sdk.events.first(where: { $0.name == "pushEventRequestDataIsNil" }, after: event.index + 1)?
                .function == "deliveryEvent")

        await OutboxPushEventReporter(core: sdk.tern.core).reportOpen(messageId: "m-fine")
        var sent: [String] = []
        for _ in 0..<100 where sent.isEmpty {
            _ = await sdk.tern.flush(timeout: 2)
            sent = await server.requests.filter { $0.path.hasSuffix("/event/push") }.flatMap { request in
                (jsonObject(request.body)["events"] as? [[String: Any]] ?? []).compactMap {
                    $0["message_id"] as? String
                }
            }
            if sent.isEmpty { try await Task.sleep(for: .milliseconds(20)) }
        }
        #expect(sent == ["m-fine"], "the broken reports were never queued")
        await sdk.close()
    }

    @Test func theExtensionRaisesPushIsPostedAfterPushReceiveForTernPushesOnly() async throws {
        let server = try ScriptedServer()
        defer { server.stop() }
        let sdk = try TestSDK()
        sdk.configure(apiUrl: server.apiUrl)
        var ports = NSEDependencies.platformDefault(for: sdk.tern)
        ports.categoryStore = InMemoryCategoryStore()
        ports.writer = FileAttachmentWriter(directory: sdk.directory.url.appendingPathComponent("media"))
        let nse = TernNSE(tern: sdk.tern, dependencies: ports)

        let foreign = HandlerCalls()
        nse.handleNotification(content: NotificationContent(userInfo: ["aps": ["alert": "not ours"]])) { result in
            Task { await foreign.record(result) }
        }
        _ = await foreign.first()
        let payload = try serverPayload(
            TernPushPayload(messageId: "m-posted", track: .init(delivery: true, open: true)))
        let calls = HandlerCalls()
        nse.handleNotification(content: NotificationContent(userInfo: payload)) { result in
            Task { await calls.record(result) }
        }
        _ = await calls.first()
        let posted = try #require(await sdk.events.first("pushIsPosted"))
        #expect(!posted.isError && posted.module == "push")
        let received = try #require(sdk.events.all.first { $0.name == "pushReceive" })
        #expect(received.index < posted.index, "received, then posted")
        await sdk.settle()
        #expect(sdk.events.all.filter { $0.name == "pushIsPosted" }.count == 1, "the foreign push posted nothing")
        await sdk.close()
    }
}
