import Foundation
import TernProtocol

/// The Notification Service Extension's work, on values: read the push, report its delivery,
/// attach its media, give its buttons a category of their own, and answer the system exactly once.
///
/// Every path calls the content handler once: with the enriched content when the work is done,
/// with the content as it came when nothing could be added or the push is not Tern's, and at once
/// with the content as it came when ``timeWillExpire()`` says the system's time is up. Parts run
/// side by side: a failed download still leaves the buttons, a refused category still leaves the
/// picture. Each problem is reported as a push event through the ``PushIssueReporting`` port.
///
/// ```swift
/// let processor = NotificationServiceProcessor(
///     downloader: URLSessionMediaDownloader(), writer: FileAttachmentWriter(),
///     categories: CategoryRegistry(store: store), delivery: outbox, issues: events)
/// await processor.process(content) { result in show(result) }
/// ```
public actor NotificationServiceProcessor {
    /// Receives the one result for a notification: what to show.
    public typealias ContentHandler = @Sendable (NotificationServiceResult) -> Void
    /// The function the extension's events name.
    static let function = "handleNotificationRequest"

    /// The processor's limits.
    public let configuration: NotificationServiceConfiguration
    private let parser: PushPayloadParser
    private let fetcher: MediaFetcher
    private let categories: CategoryRegistry?
    private let delivery: (any DeliveryReporting)?
    private let issues: (any PushIssueReporting)?

    private var waiting: [Int: (content: NotificationContent, handler: ContentHandler)] = [:]
    private var running: [Int: Task<Void, Never>] = [:]
    private var nextRequest = 0

    /// A processor on the given ports.
    ///
    /// - Parameters:
    ///   - configuration: Its limits; default `NotificationServiceConfiguration()`.
    ///   - downloader: Downloads media.
    ///   - writer: Keeps downloaded files as attachments.
    ///   - categories: Registers each message's category for its buttons; nil shows no buttons.
    ///   - delivery: Reports deliveries; nil reports none.
    ///   - issues: Reports push problems as events; nil reports none.
    public init(
        configuration: NotificationServiceConfiguration = NotificationServiceConfiguration(),
        downloader: any MediaDownloading, writer: any AttachmentWriting, categories: CategoryRegistry?,
        delivery: (any DeliveryReporting)?, issues: (any PushIssueReporting)?
    ) {
        self.configuration = configuration
        parser = PushPayloadParser(mediaPolicy: configuration.mediaPolicy)
        fetcher = MediaFetcher(
            downloader: downloader, writer: writer, policy: configuration.mediaPolicy,
            limits: configuration.mediaLimits)
        self.categories = categories
        self.delivery = delivery
        self.issues = issues
    }

    /// Starts processing `content`; `contentHandler` is called exactly once, possibly after this returns.
    public func process(_ content: NotificationContent, contentHandler: @escaping ContentHandler) {
        let request = nextRequest
        nextRequest += 1
        waiting[request] = (content, contentHandler)
        running[request] = Task {
            let result = await self.work(content)
            self.finish(request, with: result)
            self.ended(request)
        }
    }

    /// Processes `content` and returns what the system is handed.
    public func process(_ content: NotificationContent) async -> NotificationServiceResult {
        await withCheckedContinuation { continuation in
            process(content) { continuation.resume(returning: $0) }
        }
    }

    /// The system's time is up: every notification still in progress is answered now, as it came,
    /// and its work is cancelled.
    public func timeWillExpire() {
        for request in waiting.keys.sorted() {
            guard let entry = waiting[request] else { continue }
            finish(request, with: NotificationServiceResult(ending: .timeExpired, content: entry.content))
        }
        for task in running.values { task.cancel() }
    }

    /// Waits until no work is left running (answered or not): for tests and the benchmark.
    public func drain() async {
        while let task = running.values.first {
            await task.value
        }
    }

    private func finish(_ request: Int, with result: NotificationServiceResult) {
        guard let entry = waiting.removeValue(forKey: request) else { return }
        entry.handler(result)
        // The reference's `pushIsPosted`: a Tern push was handed to the system to show.
        guard result.ending != .notTern, let issues else { return }
        let messageId = parser.parse(json: entry.content.userInfo).message?.messageId
        Task { await issues.progress(.pushIsPosted, messageId: messageId, function: Self.function) }
    }

    private func ended(_ request: Int) {
        running[request] = nil
    }

    private nonisolated func work(_ content: NotificationContent) async -> NotificationServiceResult {
        let message: TernPushMessage
        var problems: [PushIssue]
        switch parser.parse(json: content.userInfo) {
        case .notTern:
            return NotificationServiceResult(ending: .notTern, content: content)
        case .malformed(let found):
            await issues?.progress(.pushReceive, messageId: nil, function: Self.function)
            await report(found)
            return NotificationServiceResult(ending: .asItCame, content: content, issues: found)
        case .push(let parsed, let found):
            message = parsed
            problems = found
        }
        // The reference's `pushReceive`: a Tern push reached the extension.
        await issues?.progress(.pushReceive, messageId: message.messageId, function: Self.function)
        await report(problems)

        async let delivered: Void = reportDelivery(of: message)
        async let media = attachMedia(of: message)
        async let category = registerCategory(of: message)
        let (attachment, mediaIssue) = await media
        let categoryIdentifier = await category
        await delivered

        if let mediaIssue {
            problems.append(mediaIssue)
            await report([mediaIssue])
        }
        guard attachment != nil || categoryIdentifier != nil else {
            return NotificationServiceResult(ending: .asItCame, content: content, issues: problems)
        }
        var enriched = content
        if let attachment { enriched.attachments.append(attachment) }
        if let categoryIdentifier { enriched.categoryIdentifier = categoryIdentifier }
        return NotificationServiceResult(
            ending: .enriched, content: enriched, attachment: attachment, categoryIdentifier: categoryIdentifier,
            issues: problems)
    }

    private nonisolated func reportDelivery(of message: TernPushMessage) async {
        guard message.track.delivery, let messageId = message.messageId, let delivery else { return }
        _ = await Deadline.run(configuration.deliveryReportTimeout) {
            await delivery.reportDelivery(messageId: messageId)
        }
    }

    private nonisolated func attachMedia(of message: TernPushMessage) async -> (NotificationAttachment?, PushIssue?) {
        guard let url = message.mediaURL else { return (nil, nil) }
        switch await fetcher.fetch(url) {
        case .success(let attachment):
            return (attachment, nil)
        case .failure(let error):
            let issue = PushIssue(
                .errorMediaDownload, reason: error.description, details: ["url": .string(url.absoluteString)])
            return (nil, issue)
        }
    }

    private nonisolated func registerCategory(of message: TernPushMessage) async -> String? {
        guard let categories, let category = MessageCategory.category(for: message) else { return nil }
        return await categories.register(category)
    }

    private nonisolated func report(_ found: [PushIssue]) async {
        guard let issues else { return }
        for issue in found {
            await issues.report(issue, function: Self.function)
        }
    }
}
