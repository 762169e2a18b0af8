import Foundation
import TernCore
import TernProtocol
import TernTestSupport
import Testing

@testable import TernPush

@MainActor
@Suite struct NotificationWiringTests {
    @Test func eachSDKInstanceHasOneNotificationManager() throws {
        let directory = try TemporaryDirectory(prefix: "wiring")
        defer { directory.remove() }
        let one = Tern(environment: .directory(directory.url.appendingPathComponent("one")))
        let two = Tern(environment: .directory(directory.url.appendingPathComponent("two")))
        #expect(one.push.notificationManager === one.push.notificationManager)
        #expect(one.push.notificationManager !== two.push.notificationManager)
    }

    @Test func aPushIssueReachesTheSubscriberAsAnErrorEventWithTheReferenceText() async throws {
        let directory = try TemporaryDirectory(prefix: "wiring")
        defer { directory.remove() }
        let tern = Tern(environment: .directory(directory.url))
        var received: [Event] = []
        tern.eventSDKFunctions.subscribe { received.append($0) }
        let issue = PushIssue(
            .unknownButtonIdentifier, reason: "the message has no button 'gone'",
            details: ["identifier": "gone", "message_id": nil])

        await EventBusIssueReporter(bus: tern.core.bus).report(issue, function: "notificationManager")
        await tern.core.bus.flush()

        let event = try #require(received.first)
        #expect(event is ErrorEvent)
        #expect(event.function == "notificationManager")
        #expect(event.event as? PushModuleEvents == .unknownButtonIdentifier)
        #expect(event.message == "unknown button identifier. See event value")
        #expect(event.value?["identifier"] as? String == "gone")
        #expect(event.value?["reason"] as? String == "the message has no button 'gone'")
        #expect(event.value?["message_id"] == nil)
        #expect(PushIssue.Kind.allCases.allSatisfy { PushModuleEvents(rawValue: $0.rawValue) != nil })
        await tern.shutdown()
    }
}
