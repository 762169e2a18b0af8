import Foundation
import TernCore
import TernHTTP
import TernNotificationService
import TernProtocol
import TernTestSupport
import Testing

@testable import TernPush

@Suite struct NSEFacadeTests {
    @Test func theFacadeRecognisesProcessesAndExpiresInCallOrder() async throws {
        let directory = try TemporaryDirectory(prefix: "nse-facade")
        defer { directory.remove() }
        let server = try MediaServer([
            "/a.png": .init(body: NoisePNG.make(width: 4, height: 4)),
            "/held.png": .init(body: NoisePNG.make(width: 4, height: 4), held: true),
        ])
        defer { server.stop() }
        let tern = Tern(environment: .directory(directory.url))
        let delivery = RecordingDelivery()
        let store = InMemoryCategoryStore()
        let nse = TernNSE(
            tern: tern,
            dependencies: NSEDependencies(
                configuration: NotificationServiceConfiguration(
                    mediaPolicy: MediaURLPolicy(allowsPlainHTTPOnLoopback: true)),
                writer: FileAttachmentWriter(directory: directory.url.appendingPathComponent("media")),
                categoryStore: store, delivery: delivery, issues: RecordingIssues()))
        nse.setAppGroup(groupName: "group.test")

        let quick = try serverPayload(
            TernPushPayload(
                messageId: "m-1", mediaURL: server.url("/a.png"),
                buttons: [PushButton(id: "go", title: "Go", action: .open)], track: .init(delivery: true, open: true)))
        let slow = try serverPayload(TernPushPayload(messageId: "m-2", mediaURL: server.url("/held.png")))
        #expect(nse.isTernPush(userInfo: quick.mapKeys()))
        #expect(!nse.isTernPush(userInfo: ["aps": ["alert": "x"]]))

        let calls = HandlerCalls()
        nse.handleNotification(content: NotificationContent(userInfo: quick)) { result in
            Task { await calls.record(result) }
        }
        await nse.drain()
        let first = await calls.first()
        #expect(first.ending == .enriched)
        #expect(first.attachment?.kind == .png)
        #expect(first.categoryIdentifier == "tern.m-1")
        #expect(await delivery.messageIds == ["m-1"])

        let expired = HandlerCalls()
        nse.handleNotification(content: NotificationContent(title: "held", userInfo: slow)) { result in
            Task { await expired.record(result) }
        }
        nse.serviceExtensionTimeWillExpire()
        let answer = await expired.first()
        await server.log.release()
        await nse.drain()
        #expect(answer.ending == .timeExpired)
        #expect(answer.content.title == "held")
        #expect(await expired.results.count == 1)
        await tern.shutdown()
    }
}

extension Dictionary where Key == String {
    /// As an OS `userInfo` dictionary.
    func mapKeys() -> [AnyHashable: Any] {
        var userInfo: [AnyHashable: Any] = [:]
        for (key, value) in self { userInfo[key] = (value as? JSONValue)?.anyValue ?? value }
        return userInfo
    }
}
