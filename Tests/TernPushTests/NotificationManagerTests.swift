import Foundation
import TernProtocol
import Testing

@testable import TernPush

actor RecordingOpens: OpenReporting {
    private(set) var messageIds: [String] = []
    private var waiters: [(Int, CheckedContinuation<Void, Never>)] = []

    func reportOpen(messageId: String) async {
        messageIds.append(messageId)
        let ready = waiters.filter { $0.0 <= messageIds.count }
        waiters.removeAll { $0.0 <= messageIds.count }
        for (_, waiter) in ready { waiter.resume() }
    }

    /// Returns once `count` opens have been reported.
    func wait(for count: Int) async {
        guard messageIds.count < count else { return }
        await withCheckedContinuation { waiters.append((count, $0)) }
    }
}

@MainActor
final class RecordingOpener: URLOpening {
    private(set) var opened: [URL] = []
    nonisolated init() {}
    func open(_ url: URL) async -> Bool {
        opened.append(url)
        return true
    }
}

@MainActor
final class RecordingRouter: PushURLHandling {
    var takes: Bool
    private(set) var handled: [(URL, PushURLSource)] = []
    init(takes: Bool) { self.takes = takes }
    func handlePushURL(_ url: URL, source: PushURLSource) -> Bool {
        handled.append((url, source))
        return takes
    }
}

@MainActor
@Suite struct NotificationManagerTests {
    let opens = RecordingOpens()
    let issues = RecordingIssues()
    let opener = RecordingOpener()
    let manager: NotificationManager

    init() {
        manager = NotificationManager(urlOpener: opener, issues: issues)
        manager.setOpenReporter(opens)
    }

    static func push(
        _ id: String = "m-1", clickURL: String? = "https://example.com/sale", open: Bool = true,
        buttons: [PushButton] = []
    ) -> PushNotification {
        let tern = TernPushPayload(
            messageId: id, buttons: buttons, clickURL: clickURL, track: .init(delivery: true, open: open))
        let userInfo = (try? serverPayload(tern)) ?? [:]
        return PushNotification(
            identifier: "n-\(id)", content: NotificationContent(title: "Sale", body: "30% off", userInfo: userInfo))
    }

    func present(_ notification: PushNotification) async -> PresentationOptions {
        await withCheckedContinuation { continuation in
            manager.willPresent(notification) { continuation.resume(returning: $0) }
        }
    }

    func click(_ notification: PushNotification, action: String = PushNotificationResponse.defaultActionIdentifier)
        async
    {
        await withCheckedContinuation { continuation in
            manager.didReceive(PushNotificationResponse(notification: notification, actionIdentifier: action)) {
                continuation.resume()
            }
        }
    }

    @Test func theStandardForegroundOptionsShowEverythingUnlessTheAppOwnsTheBadge() async {
        var seen: [String] = []
        manager.onForegroundNotification = { notification, _ in seen.append(notification.identifier) }
        #expect(await present(Self.push()) == [.banner, .list, .sound, .badge])
        manager.applicationControlsBadging = true
        #expect(await present(Self.push()) == [.banner, .list, .sound])
        #expect(seen == ["n-m-1", "n-m-1"])
    }

    @Test func withCustomPushProcessingTheAppsCompleteDecidesOnce() async {
        manager.customPushProcessing = true
        manager.onForegroundNotification = { _, complete in
            complete([])
            complete([.banner])
        }
        #expect(await present(Self.push()) == [])
        manager.onForegroundNotification = nil
        #expect(await present(Self.push()) == [.banner, .list, .sound, .badge])
    }

    @Test func willPresentAndDidReceiveArePostedToNotificationCenter() async {
        var names: [Notification.Name] = []
        let observers = [Notification.Name.ternPushWillPresent, .ternPushDidReceive].map { name in
            NotificationCenter.default.addObserver(forName: name, object: manager, queue: nil) { note in
                let key = note.name == .ternPushWillPresent ? "notification" : "response"
                let carries = note.userInfo?[key] != nil
                let name = note.name
                // Posted synchronously by the manager, on the main actor.
                MainActor.assumeIsolated { if carries { names.append(name) } }
            }
        }
        defer { observers.forEach(NotificationCenter.default.removeObserver) }
        _ = await present(Self.push())
        await click(Self.push(), action: PushNotificationResponse.dismissActionIdentifier)
        #expect(names == [.ternPushWillPresent, .ternPushDidReceive])
    }

    @Test func aForegroundListenerCanHideThePushAndRecordItsClickOnce() async {
        var event: ForegroundNotificationEvent?
        manager.addForegroundListener { received in
            received.preventDefault()
            event = received
        }
        #expect(await present(Self.push("m-5")) == [])
        #expect(event?.message.messageId == "m-5")
        event?.recordClick()
        event?.recordClick()
        await opens.wait(for: 1)
        await click(Self.push("m-5"))
        #expect(await opens.messageIds == ["m-5"])
    }

    @Test func aTapReportsTheOpenOnceAndHandsTheClickURLToTheAppFirst() async {
        let router = RecordingRouter(takes: true)
        manager.urlHandler = router
        await click(Self.push("m-2"))
        await click(Self.push("m-2"))
        await opens.wait(for: 1)
        #expect(await opens.messageIds == ["m-2"])
        #expect(
            router.handled.map(\.0) == [
                URL(string: "https://example.com/sale")!, URL(string: "https://example.com/sale")!,
            ])
        #expect(router.handled.first?.1 == .notification)
        #expect(opener.opened.isEmpty)
    }

    @Test func aURLTheAppDoesNotTakeIsOpenedByTheSystem() async {
        let router = RecordingRouter(takes: false)
        manager.urlHandler = router
        await click(Self.push())
        manager.urlHandler = nil
        await click(Self.push("m-3"))
        #expect(opener.opened == [URL(string: "https://example.com/sale")!, URL(string: "https://example.com/sale")!])
        #expect(router.handled.count == 1)
    }

    @Test func buttonsOpenTheirURLDismissQuietlyAndUnknownOnesAreReported() async {
        let buttons = [
            PushButton(id: "shop", title: "Shop", action: .url, url: "myapp://shop"),
            PushButton(id: "later", title: "Later", action: .dismiss),
        ]
        let router = RecordingRouter(takes: true)
        manager.urlHandler = router
        await click(Self.push("m-b1", buttons: buttons), action: "tern.button.later")
        await click(Self.push("m-b2", buttons: buttons), action: "tern.button.shop")
        await click(Self.push("m-b3", buttons: buttons), action: "tern.button.gone")
        await opens.wait(for: 2)
        // This reporter queues each open from a task of its own (`OpenReporting`'s default), so the
        // two may arrive in either order.
        #expect(await opens.messageIds.sorted() == ["m-b2", "m-b3"])
        #expect(router.handled.map(\.0) == [URL(string: "myapp://shop")!])
        #expect(router.handled.first?.1 == .button("shop"))
        while await issues.kinds.isEmpty { await Task.yield() }
        #expect(await issues.kinds == [.unknownButtonIdentifier])
        #expect(await issues.issues.first?.value["identifier"] == "gone")
    }

    @Test func aDismissalOrAnUntrackedPushReportsNoOpen() async {
        await click(Self.push("m-d"), action: PushNotificationResponse.dismissActionIdentifier)
        await click(Self.push("m-u", open: false))
        await click(Self.push("m-t"))
        await opens.wait(for: 1)
        #expect(await opens.messageIds == ["m-t"])
    }

    @Test func withCustomClickProcessingTheAppOwnsTheClick() async {
        manager.customClickProcessing = true
        var clicked: [String] = []
        manager.onNotificationClick = { response, complete in
            clicked.append(response.notification.identifier)
            complete()
            complete()
        }
        await click(Self.push("m-c"))
        #expect(clicked == ["n-m-c"])
        #expect(opener.opened.isEmpty)
        await click(Self.push("m-after"))
        manager.customClickProcessing = false
        await click(Self.push("m-sdk"))
        await opens.wait(for: 1)
        #expect(await opens.messageIds == ["m-sdk"])
    }

    @Test func anOpenFromAColdLaunchWaitsForTheReporter() async {
        let cold = NotificationManager(urlOpener: opener)
        await withCheckedContinuation { continuation in
            cold.didReceive(PushNotificationResponse(notification: Self.push("m-cold"))) { continuation.resume() }
        }
        let late = RecordingOpens()
        cold.setOpenReporter(late)
        await late.wait(for: 1)
        #expect(await late.messageIds == ["m-cold"])
    }

    @Test func anotherSendersPushIsLeftAlone() async {
        let foreign = PushNotification(
            identifier: "x", content: NotificationContent(userInfo: ["aps": ["alert": "hi"]]))
        await click(foreign)
        #expect(opener.opened.isEmpty)
        #expect(await present(foreign) == [.banner, .list, .sound, .badge])
    }
}
