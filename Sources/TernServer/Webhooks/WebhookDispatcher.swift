import Foundation
import TernHTTP

/// Posts webhooks' waiting events: for each webhook, its due events in batches of
/// ``WebhookLimits/batch``, oldest first, signed (the `Tern-Signature` header), one batch at a time; the
/// webhooks side by side. A batch the receiver answers 2xx is deleted; any other answer, or none
/// within ``WebhookLimits/timeout``, puts it off (5 s, doubling, at most an hour) until it is a day
/// old, when it is given up and counted as dropped. Claims are leased, so of several nodes each
/// posts its own batches, and a node that dies leaves its batch to be posted again: a receiver
/// gets each event at least once and drops repeats by `id`.
///
/// ```json
/// {"events": [{"id": "41", "type": "push.opened", "time": 1765432100000, "message_id": "m_3fa2",
///   "push_id": "m_3fa2.17", "delivery_id": 17}]}
/// ```
public struct WebhookDispatcher: Sendable {
    let store: any Store
    let client: HTTP2Client
    let logger: Logger
    let metrics: Metrics?
    let clock: @Sendable () -> Int64
    /// How long the loop rests when nothing was due.
    var idle: Duration = .seconds(1)

    /// A dispatcher that posts through `client`.
    ///
    /// - Parameters:
    ///   - store: Where the webhooks and their events are.
    ///   - client: The HTTP client posts go through.
    ///   - logger: Failed posts are logged here.
    ///   - metrics: Counts posts and events (`tern_webhook_posts_total`, `tern_webhook_events_total`).
    ///   - clock: The current time in ms since 1970 (tests pass their own).
    public init(
        store: any Store, client: HTTP2Client, logger: Logger, metrics: Metrics? = nil,
        clock: @escaping @Sendable () -> Int64 = ServerClock.milliseconds
    ) {
        self.store = store
        self.client = client
        self.logger = logger
        self.metrics = metrics
        self.clock = clock
    }

    /// Posts until cancelled.
    public func run() async {
        while !Task.isCancelled {
            var posted = 0
            do {
                posted = try await pass()
            } catch {
                logger.warn("posting webhook events failed", ["error": "\(error)"])
            }
            if posted == 0 { try? await Task.sleep(for: idle) }
        }
    }

    /// Posts every webhook's due events, until none is due or its post fails; answers how many
    /// events receivers took.
    @discardableResult
    public func pass() async throws -> Int {
        let now = clock()
        let webhooks = try await store.read { tx in try tx.webhooksDue(now: now) }
        return await withTaskGroup(of: Int.self) { group in
            for webhook in webhooks {
                group.addTask { await drain(webhook) }
            }
            return await group.reduce(0, +)
        }
    }

    /// Posts the webhook's due events a batch at a time while the receiver takes them.
    func drain(_ webhook: StoredWebhook) async -> Int {
        var posted = 0
        while !Task.isCancelled {
            let now = clock()
            let claimed: [ClaimedWebhookEvent]
            do {
                claimed = try await store.write { tx in
                    try tx.claimWebhookEvents(
                        webhookId: webhook.id, limit: WebhookLimits.batch, now: now,
                        leaseUntil: now + WebhookLimits.lease)
                }
            } catch {
                logger.warn("claiming webhook events failed", ["webhook": webhook.id, "error": "\(error)"])
                return posted
            }
            guard !claimed.isEmpty else { return posted }
            let (status, failure) = await post(claimed, to: webhook, now: now)
            let ids = claimed.map(\.id)
            let done = clock()
            do {
                if let failure {
                    let attempts = (claimed.map(\.attempts).max() ?? 0) + 1
                    let dropped = try await store.write { tx in
                        try tx.webhookFailed(
                            webhookId: webhook.id, eventIds: ids, status: status, error: failure, now: done,
                            retryAt: done + WebhookLimits.retryDelay(attempts: attempts),
                            givenUpBefore: done - WebhookLimits.maxAge)
                    }
                    metrics?.recordWebhookPost(ok: false, events: ids.count, dropped: dropped)
                    logger.warn(
                        "a webhook's post failed; its events wait",
                        [
                            "webhook": webhook.id, "status": status, "events": ids.count, "dropped": dropped,
                            "error": failure,
                        ])
                    return posted
                }
                try await store.write { tx in
                    try tx.webhookPosted(webhookId: webhook.id, eventIds: ids, status: status, now: done)
                }
                metrics?.recordWebhookPost(ok: true, events: ids.count, dropped: 0)
                posted += ids.count
            } catch {
                // Left leased: posted again once the lease runs out, so a receiver may see them twice.
                logger.warn("recording a webhook's post failed", ["webhook": webhook.id, "error": "\(error)"])
                return posted
            }
        }
        return posted
    }

    /// Posts one batch; answers the status (0 without an answer) and why it failed, nil on 2xx.
    func post(_ events: [ClaimedWebhookEvent], to webhook: StoredWebhook, now: Int64) async -> (Int, String?) {
        guard let url = URL(string: webhook.url) else { return (0, "the URL cannot be parsed") }
        let body = Self.body(events)
        var request = HTTP2Request(method: "POST", url: url, body: body, timeout: WebhookLimits.timeout)
        request.headers = [
            ("content-type", "application/json"), ("user-agent", "tern-webhooks/1"),
            ("tern-webhook-id", String(webhook.id)),
            (WebhookSignature.header, WebhookSignature.sign(body: body, secret: webhook.secret, seconds: now / 1000)),
        ]
        do {
            let response = try await client.send(request)
            guard (200..<300).contains(response.status) else {
                let text = String(decoding: response.body.prefix(200), as: UTF8.self)
                return (response.status, "the receiver answered \(response.status)\(text.isEmpty ? "" : ": \(text)")")
            }
            return (response.status, nil)
        } catch {
            return (0, "no answer: \(error)")
        }
    }

    /// `{"events": [...]}`, each event's stored JSON with its id put first.
    static func body(_ events: [ClaimedWebhookEvent]) -> Data {
        var body = Data(#"{"events":["#.utf8)
        for (index, event) in events.enumerated() {
            if index > 0 { body.append(UInt8(ascii: ",")) }
            body.append(contentsOf: #"{"id":"\#(event.id)""#.utf8)
            let rest = event.body.utf8.dropFirst()
            if rest.first != UInt8(ascii: "}") { body.append(UInt8(ascii: ",")) }
            body.append(contentsOf: rest)
        }
        body.append(contentsOf: "]}".utf8)
        return body
    }
}
