import Foundation
import TernHTTP
import TernProtocol
import TernTestSupport
import Testing

@testable import TernPush

@Suite struct NSEProcessorTests {
    let directory: TemporaryDirectory
    let loopback = NotificationServiceConfiguration(mediaPolicy: MediaURLPolicy(allowsPlainHTTPOnLoopback: true))

    init() throws {
        directory = try TemporaryDirectory(prefix: "nse")
    }

    func processor(
        _ configuration: NotificationServiceConfiguration, store: InMemoryCategoryStore = InMemoryCategoryStore(),
        delivery: RecordingDelivery = RecordingDelivery(), issues: RecordingIssues = RecordingIssues()
    ) -> NotificationServiceProcessor {
        NotificationServiceProcessor(
            configuration: configuration, downloader: URLSessionMediaDownloader(),
            writer: FileAttachmentWriter(directory: directory.url), categories: CategoryRegistry(store: store),
            delivery: delivery, issues: issues)
    }

    func content(_ tern: TernPushPayload) throws -> NotificationContent {
        NotificationContent(title: "Sale", body: "30% off", userInfo: try serverPayload(tern))
    }

    @Test func aServerBuiltPushComesOutWithItsImageFromLoopbackAndItsButtons() async throws {
        let image = NoisePNG.make(width: 64, height: 64)
        let server = try MediaServer(["/sale.png": .init(headers: [("Content-Type", "image/png")], body: image)])
        defer { server.stop() }
        let store = InMemoryCategoryStore()
        let delivery = RecordingDelivery()
        let issues = RecordingIssues()
        let push = TernPushPayload(
            messageId: "m-42", mediaURL: server.url("/sale.png"),
            buttons: [
                PushButton(id: "shop", title: "Shop now", action: .url, url: "https://example.com/sale"),
                PushButton(id: "later", title: "Later", action: .dismiss),
            ],
            track: .init(delivery: true, open: true))

        let result = await processor(loopback, store: store, delivery: delivery, issues: issues)
            .process(try content(push))

        #expect(result.ending == .enriched)
        let attachment = try #require(result.attachment)
        #expect(attachment.kind == .png)
        #expect(attachment.fileURL.pathExtension == "png")
        #expect(try Data(contentsOf: attachment.fileURL) == image)
        #expect(result.content.attachments == [attachment])
        #expect(result.categoryIdentifier == "tern.m-42")
        #expect(result.content.categoryIdentifier == "tern.m-42")
        #expect(result.content.title == "Sale")
        let category = try #require(await store.category("tern.m-42"))
        #expect(category.actions.map(\.identifier) == ["tern.button.shop", "tern.button.later"])
        #expect(category.actions.map(\.title) == ["Shop now", "Later"])
        #expect(category.actions.map(\.options) == [.foreground, []])
        #expect(await delivery.messageIds == ["m-42"])
        #expect(await issues.issues.isEmpty)
    }

    @Test func theDefaultPolicyRefusesPlainHTTPAndDownloadsNothing() async throws {
        let server = try MediaServer(["/a.png": .init(body: NoisePNG.make(width: 2, height: 2))])
        defer { server.stop() }
        let issues = RecordingIssues()
        let push = TernPushPayload(messageId: "m-1", mediaURL: server.url("/a.png"))

        let result = await processor(NotificationServiceConfiguration(), issues: issues).process(try content(push))

        #expect(result.ending == .asItCame)
        #expect(result.attachment == nil)
        #expect(await issues.kinds == [.errorMediaKeyMissing])
        #expect(await server.log.paths.isEmpty)
    }

    @Test func whenTimeRunsOutMidDownloadTheHandlerGetsTheOriginalContentOnce() async throws {
        let server = try MediaServer(["/slow.png": .init(body: NoisePNG.make(width: 8, height: 8), held: true)])
        defer { server.stop() }
        let calls = HandlerCalls()
        let processor = processor(loopback)
        let original = try content(
            TernPushPayload(
                messageId: "m-7", mediaURL: server.url("/slow.png"),
                buttons: [PushButton(id: "a", title: "A", action: .open)]))

        await processor.process(original) { result in Task { await calls.record(result) } }
        await server.log.firstArrival()
        await processor.timeWillExpire()
        let first = await calls.first()
        await server.log.release()
        await processor.drain()
        await processor.timeWillExpire()

        #expect(first.ending == .timeExpired)
        #expect(first.content == original)
        #expect(first.isAsItCame)
        #expect(await calls.results.count == 1)
    }

    @Test func twoPushesWithDifferentButtonsGetTwoCategoriesBesideTheAppsOwn() async throws {
        let appOwn = NotificationCategory(
            identifier: "ORDER_V1",
            actions: [NotificationAction(identifier: "VIEW", title: "View", options: .foreground)])
        let store = InMemoryCategoryStore(appCategories: [appOwn])
        let processor = processor(loopback, store: store)
        let one = try content(
            TernPushPayload(messageId: "m-1", buttons: [PushButton(id: "yes", title: "Yes", action: .open)]))
        let two = try content(
            TernPushPayload(
                messageId: "m-2",
                buttons: [
                    PushButton(id: "no", title: "No", action: .dismiss),
                    PushButton(id: "web", title: "Web", action: .url, url: "https://example.com"),
                ]))
        async let first = processor.process(one)
        async let second = processor.process(two)
        let results = await [first, second]

        #expect(results.map(\.categoryIdentifier) == ["tern.m-1", "tern.m-2"])
        #expect(await store.category("tern.m-1")?.actions.map(\.title) == ["Yes"])
        #expect(await store.category("tern.m-2")?.actions.map(\.title) == ["No", "Web"])
        #expect(await store.appCategories == [appOwn])
    }

    @Test func theTypeComesFromTheBytesNotTheURL() async throws {
        let server = try MediaServer(["/photo.jpg": .init(body: Data("<html>not an image</html>".utf8))])
        defer { server.stop() }
        let issues = RecordingIssues()
        let push = TernPushPayload(
            messageId: "m-3", mediaURL: server.url("/photo.jpg"),
            buttons: [PushButton(id: "a", title: "A", action: .open)])

        let result = await processor(loopback, issues: issues).process(try content(push))

        #expect(result.attachment == nil)
        #expect(result.categoryIdentifier == "tern.m-3")
        #expect(await issues.kinds == [.errorMediaDownload])
        #expect(await issues.issues.first?.reason.contains("first bytes") == true)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path).isEmpty)
    }

    @Test func anImageOverTheLimitIsRefusedAndItsPartialFileRemoved() async throws {
        let server = try MediaServer(["/big.png": .init(body: NoisePNG.make(width: 100, height: 100))])
        defer { server.stop() }
        var configuration = loopback
        configuration.mediaLimits.imageMaxBytes = 10_000
        let issues = RecordingIssues()

        let result = await processor(configuration, issues: issues)
            .process(try content(TernPushPayload(messageId: "m-4", mediaURL: server.url("/big.png"))))

        #expect(result.ending == .asItCame)
        #expect(await issues.issues.first?.reason.contains("larger than the 10000 bytes") == true)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path).isEmpty)
    }

    @Test func aBodyPastEveryLimitIsAbandonedWhileItDownloads() async throws {
        let server = try MediaServer(["/huge.png": .init(body: NoisePNG.make(width: 200, height: 200))])
        defer { server.stop() }
        var configuration = loopback
        configuration.mediaLimits = MediaLimits(imageMaxBytes: 4_000, audioMaxBytes: 4_000, videoMaxBytes: 4_000)
        let issues = RecordingIssues()

        let result = await processor(configuration, issues: issues)
            .process(try content(TernPushPayload(messageId: "m-10", mediaURL: server.url("/huge.png"))))

        #expect(result.attachment == nil)
        #expect(await issues.issues.first?.reason == "the media file is larger than the 4000 bytes iOS accepts")
    }

    @Test func anErrorStatusIsErrorMediaDownloadWithTheCode() async throws {
        let server = try MediaServer([:])
        defer { server.stop() }
        let issues = RecordingIssues()

        _ = await processor(loopback, issues: issues)
            .process(try content(TernPushPayload(messageId: "m-5", mediaURL: server.url("/missing.png"))))

        #expect(await issues.kinds == [.errorMediaDownload])
        #expect(await issues.issues.first?.reason.contains("HTTP 404") == true)
    }

    @Test func aDownloadPastItsTimeLimitIsAbandoned() async throws {
        let server = try MediaServer(["/stuck.png": .init(body: NoisePNG.make(width: 2, height: 2), held: true)])
        defer { server.stop() }
        var configuration = loopback
        configuration.mediaLimits.timeout = .milliseconds(200)
        let issues = RecordingIssues()

        let result = await processor(configuration, issues: issues)
            .process(try content(TernPushPayload(messageId: "m-6", mediaURL: server.url("/stuck.png"))))
        await server.log.release()

        #expect(result.ending == .asItCame)
        #expect(await issues.kinds == [.errorMediaDownload])
        #expect(await issues.issues.first?.reason.contains("took longer") == true)
    }

    @Test func aRedirectAwayFromHTTPSIsRefused() async throws {
        let server = try MediaServer([
            "/moved.png": .init(status: 302, headers: [("Location", "http://example.com/a.png")])
        ])
        defer { server.stop() }
        let issues = RecordingIssues()

        _ = await processor(loopback, issues: issues)
            .process(try content(TernPushPayload(messageId: "m-8", mediaURL: server.url("/moved.png"))))

        #expect(await issues.kinds == [.errorMediaDownload])
        #expect(await issues.issues.first?.reason.contains("refused a redirect") == true)
    }

    @Test func aStuckDeliveryReportDoesNotHoldTheNotification() async throws {
        var configuration = loopback
        configuration.deliveryReportTimeout = .milliseconds(100)
        let delivery = RecordingDelivery(hangs: true)

        let result = await processor(configuration, delivery: delivery)
            .process(try content(TernPushPayload(messageId: "m-9", track: .init(delivery: true, open: false))))

        #expect(result.ending == .asItCame)
        #expect(await delivery.messageIds == ["m-9"])
    }

    @Test func deliveryIsReportedOnlyWhenTrackedAndIdentified() async throws {
        let delivery = RecordingDelivery()
        let issues = RecordingIssues()
        let processor = processor(loopback, delivery: delivery, issues: issues)
        _ = await processor.process(try content(TernPushPayload(messageId: "untracked")))
        _ = await processor.process(
            NotificationContent(userInfo: ["tern": ["track": ["delivery": true]]]))

        #expect(await delivery.messageIds.isEmpty)
        #expect(await issues.kinds == [.uidIsNil])
    }

    @Test func pushesThatAreNotTernOrAreMalformedAreShownAsTheyCame() async throws {
        let issues = RecordingIssues()
        let processor = processor(loopback, issues: issues)
        let foreign = NotificationContent(title: "Other", userInfo: ["aps": ["alert": "x"], "other": 1])
        let malformed = NotificationContent(title: "Bad", userInfo: ["tern": [1, 2]])

        let foreignResult = await processor.process(foreign)
        let malformedResult = await processor.process(malformed)

        #expect(foreignResult == NotificationServiceResult(ending: .notTern, content: foreign))
        #expect(malformedResult.ending == .asItCame)
        #expect(malformedResult.content == malformed)
        #expect(await issues.kinds == [.errorHandleUserInfo])
    }
}
