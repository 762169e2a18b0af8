import Foundation
import TernCore
import TernHTTP
import TernNotificationService
import TernProtocol
import TernTestSupport
import Testing

@testable import TernPush

/// A real loopback server standing in for Tern's API: records what reaches `event/push`.
final class EventSink: Sendable {
    actor Log {
        var items: [PushEventRequest.Item] = []
        func add(_ request: HTTPRequest) {
            guard request.path.hasSuffix("/event/push"),
                let batch = try? JSONDecoder().decode(PushEventRequest.self, from: request.body)
            else { return }
            items.append(contentsOf: batch.events)
        }
    }

    let log = Log()
    let server: HTTPServer

    init() throws {
        let log = log
        server = try HTTPServer(
            configuration: .init(host: "127.0.0.1", port: 0),
            handler: HTTPHandlerFunction { request in
                await log.add(request)
                return .json(200, Data(#"{"error":0,"error_text":"","profile":null}"#.utf8))
            })
        try server.start()
    }

    var apiUrl: String { "http://127.0.0.1:\(server.port)/api/v1" }
}

@Suite struct NotificationEventsTests {
    func sdk(_ directory: TemporaryDirectory, sink: EventSink) -> Tern {
        let tern = Tern(environment: .directory(directory.url))
        tern.setAppGroup(groupName: "group.test")
        tern.initialization(configuration: TernConfiguration.Builder(apiUrl: sink.apiUrl).setRToken("rt_test").build())
        return tern
    }

    @MainActor
    @Test func aTappedPushSendsOneOpenToEventPush() async throws {
        let directory = try TemporaryDirectory(prefix: "push-open")
        defer { directory.remove() }
        let sink = try EventSink()
        defer { sink.server.stop() }
        let tern = sdk(directory, sink: sink)
        let manager = tern.push.notificationManager
        let push = NotificationManagerTests.push("m-open", clickURL: nil)

        for _ in 0..<3 {
            await withCheckedContinuation { continuation in
                manager.didReceive(PushNotificationResponse(notification: push)) { continuation.resume() }
            }
        }
        // The open is handed to the outbox from a task of its own; flush until it has been sent.
        var sent: [PushEventRequest.Item] = []
        for _ in 0..<50 where sent.isEmpty {
            _ = await tern.flush(timeout: 5)
            sent = await sink.log.items
            if sent.isEmpty { try await Task.sleep(for: .milliseconds(20)) }
        }
        #expect(sent.map(\.messageId) == ["m-open"])
        #expect(sent.map(\.type) == [.open])
        await tern.shutdown()
    }

    @Test func theExtensionWritesTheDeliveryToTheOutboxAndItIsSent() async throws {
        let directory = try TemporaryDirectory(prefix: "push-delivery")
        defer { directory.remove() }
        let sink = try EventSink()
        defer { sink.server.stop() }
        let tern = sdk(directory, sink: sink)
        var ports = NSEDependencies.platformDefault(for: tern)
        ports.categoryStore = InMemoryCategoryStore()
        ports.writer = FileAttachmentWriter(directory: directory.url.appendingPathComponent("media"))
        let nse = TernNSE(tern: tern, dependencies: ports)
        let payload = try serverPayload(
            TernPushPayload(
                messageId: "m-delivered", buttons: [PushButton(id: "a", title: "A", action: .open)],
                track: .init(delivery: true, open: true)))

        let calls = HandlerCalls()
        nse.handleNotification(content: NotificationContent(userInfo: payload)) { result in
            Task { await calls.record(result) }
        }
        let result = await calls.first()
        _ = await tern.flush(timeout: 5)

        #expect(result.categoryIdentifier == "tern.m-delivered")
        #expect(await sink.log.items.map(\.messageId) == ["m-delivered"])
        #expect(await sink.log.items.map(\.type) == [.delivery])
        await tern.shutdown()
    }
}
