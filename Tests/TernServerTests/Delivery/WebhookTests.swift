import Foundation
import Synchronization
import TernCrypto
import TernHTTP
import TernProtocol
import TernTestSupport
import Testing

@testable import TernServer

/// A webhook receiver on loopback (Tern's own HTTP server): it keeps every post and answers the
/// statuses it was told, then 200.
final class WebhookReceiver: Sendable {
    struct Post: Sendable {
        var headers: [String: String]
        var body: Data

        /// The posted events, as JSON objects.
        var events: [[String: Any]] {
            ((try? JSONSerialization.jsonObject(with: body)) as? [String: Any])?["events"] as? [[String: Any]] ?? []
        }
    }

    private struct State {
        var posts: [Post] = []
        var statuses: [Int] = []
    }

    /// The log, apart from the receiver so that the handler can hold it before the server exists.
    private final class Log: Sendable {
        let state = Mutex(State())
    }

    private let log = Log()
    private let server: HTTPServer

    init() throws {
        let log = log
        server = try HTTPServer(
            configuration: .init(port: 0, threads: 1),
            handler: HTTPHandlerFunction { request in
                let status = log.state.withLock { state in
                    state.posts.append(Post(headers: request.headers, body: request.body))
                    return state.statuses.isEmpty ? 200 : state.statuses.removeFirst()
                }
                return HTTPResponse(status: status, body: Data(status == 200 ? "ok".utf8 : "not now".utf8))
            })
        try server.start()
    }

    deinit { server.stop() }

    var url: String { "http://127.0.0.1:\(server.port)/hooks/tern" }
    var posts: [Post] { log.state.withLock { $0.posts } }

    /// The next posts are answered these statuses.
    func answer(_ statuses: [Int]) { log.state.withLock { $0.statuses = statuses } }
}

/// Webhooks: a project's delivery outcomes and its devices' reports are posted to the URLs that
/// asked for them, signed, in batches, each event once, after the transaction that recorded them;
/// a failed post is tried again later with the same events and given up after a day; a project
/// without webhooks writes nothing for them; bad requests are refused with what to change.
@Suite struct WebhookTests {
    static func dispatcher(_ harness: DeliveryHarness) throws -> WebhookDispatcher {
        WebhookDispatcher(
            store: harness.server.store, client: try HTTP2Client(configuration: .init(requestTimeout: 5)),
            logger: Logger(minimum: .error, sink: { _ in }), metrics: harness.metrics, clock: harness.clock.function)
    }

    static func pending(_ harness: DeliveryHarness) async throws -> Int64 {
        try await harness.server.store.read { tx in try tx.webhooks(projectId: nil) }.map(\.pending).reduce(0, +)
    }

    /// A receiver on loopback, and a webhook of the harness's project posting `events` to it (the
    /// answer that made it, with its secret).
    static func hook(_ harness: DeliveryHarness, _ events: [String]) async throws
        -> (receiver: WebhookReceiver, made: InProcessServer.Reply)
    {
        let receiver = try WebhookReceiver()
        let made = try await harness.server.admin(
            "POST", "/projects/\(harness.server.bootstrap.projectId)/webhooks",
            json: ["url": receiver.url, "events": events])
        try #require(made.status == 201, "\(made.errorText)")
        return (receiver, made)
    }

    @Test(arguments: StoreFactory.all)
    func outcomesAndReportsArePostedSignedAndEachOnce(factory: StoreFactory) async throws {
        let harness = try await DeliveryHarness.make(store: factory)
        defer { Task { await harness.finish() } }
        let project = harness.server.bootstrap.projectId
        let (receiver, made) = try await Self.hook(harness, ["push.sent", "push.failed", "push.opened"])
        let secret = try #require(made.json["secret"] as? String)
        #expect(secret.hasPrefix("whsec_") && made.json["secret_hint"] as? String == String(secret.suffix(4)))
        let listed = try await harness.server.admin("GET", "/projects/\(project)/webhooks")
        #expect(listed.array.count == 1 && listed.array[0]["secret"] == nil, "the secret is shown once")

        for token in ["d0", "d1", "d2"] { try await harness.subscribe(token) }
        harness.sender.script("d1", [.failed(reason: "BadDeviceToken")])
        let id = try await harness.send(
            ["type": "resource", "resource_id": harness.resourceId],
            extra: ["variants": [["title": "A"], ["title": "B"]]])
        while try await harness.engine.drain() > 0 {}
        let sent = try #require(harness.sender.pushes.first { $0.token == "d0" })
        let pushId = try MessageVariantTests.shown(sent).pushId
        for type in ["delivery", "open", "open"] {
            let reply = try await harness.server.sdk(
                .eventPush, ["events": [["message_id": pushId, "type": type, "time": 2_000]]])
            try #require(reply.status == 200, "\(reply.errorText)")
        }
        #expect(try await Self.pending(harness) == 4, "2 sent, 1 failed, 1 opened: the delivery and the repeat are not")

        let dispatcher = try Self.dispatcher(harness)
        #expect(try await dispatcher.pass() == 4)
        let post = try #require(receiver.posts.first)
        #expect(receiver.posts.count == 1)
        // The signature: HMAC-SHA-256 of "<t>.<body>" with the secret.
        let signature = try #require(post.headers["tern-signature"])
        let parts = Dictionary(
            uniqueKeysWithValues: signature.split(separator: ",").map { $0.split(separator: "=", maxSplits: 1) }
                .map { (String($0[0]), String($0[1])) })
        let t = try #require(parts["t"])
        let expected = Digest.hmacSHA256(key: Data(secret.utf8), data: Data("\(t).".utf8) + post.body)
            .map { String(format: "%02x", $0) }.joined()
        #expect(parts["v1"] == expected, "\(signature)")
        #expect(post.headers["tern-webhook-id"] == "\(made.json.int("id"))")

        let events = post.events
        #expect(Set(events.compactMap { $0["id"] as? String }).count == 4, "each event has its own id")
        let byType = Dictionary(grouping: events) { $0["type"] as? String ?? "" }
        #expect(
            byType["push.sent"]?.count == 2 && byType["push.failed"]?.count == 1 && byType["push.opened"]?.count == 1)
        let failed = try #require(byType["push.failed"]?.first)
        #expect(failed["reason"] as? String == "BadDeviceToken" && failed["token"] as? String == "d1", "\(failed)")
        let opened = try #require(byType["push.opened"]?.first)
        #expect(opened["push_id"] as? String == pushId && opened.int("time") == 2_000, "\(opened)")
        #expect(opened["message_id"] as? String == id && ["a", "b"].contains(opened["variant"] as? String ?? ""))
        for event in byType["push.sent"] ?? [] {
            let eventPushId = try #require(event["push_id"] as? String)
            #expect(eventPushId.hasPrefix("\(id).\(event["variant"] as? String ?? "?")."), "\(event)")
        }

        #expect(try await dispatcher.pass() == 0 && receiver.posts.count == 1, "posted once")
        // A test event, on demand: posted like the others.
        let hookId = made.json.int("id")
        let tested = try await harness.server.admin("POST", "/projects/\(project)/webhooks/\(hookId)/test")
        #expect(tested.status == 202 && tested.json["queued"] as? String == "webhook.test", "\(tested.errorText)")
        #expect(try await harness.server.admin("POST", "/projects/\(project)/webhooks/999/test").status == 404)
        #expect(try await dispatcher.pass() == 1)
        #expect(receiver.posts.last?.events.first?["type"] as? String == "webhook.test")
        let state = try await harness.server.admin("GET", "/projects/\(project)/webhooks").array[0]
        #expect(
            state.int("pending") == 0 && state.int("last_status") == 200 && state["last_success_at"] != nil, "\(state)")
    }

    @Test(arguments: StoreFactory.all)
    func aFailedPostIsTriedAgainWithTheSameEventsAndGivenUpAfterADay(factory: StoreFactory) async throws {
        let harness = try await DeliveryHarness.make(store: factory)
        defer { Task { await harness.finish() } }
        let project = harness.server.bootstrap.projectId
        let (receiver, _) = try await Self.hook(harness, ["push.sent"])
        for token in ["d0", "d1"] { try await harness.subscribe(token) }
        _ = try await harness.send(["type": "resource", "resource_id": harness.resourceId])
        while try await harness.engine.drain() > 0 {}

        let dispatcher = try Self.dispatcher(harness)
        receiver.answer([503])
        #expect(try await dispatcher.pass() == 0)
        var state = try await harness.server.admin("GET", "/projects/\(project)/webhooks").array[0]
        #expect(state.int("pending") == 2 && state.int("last_status") == 503, "\(state)")
        #expect((state["last_error"] as? String)?.contains("the receiver answered 503: not now") == true, "\(state)")
        #expect(try await dispatcher.pass() == 0 && receiver.posts.count == 1, "not due before its delay")
        harness.clock.advance(seconds: 6)
        #expect(try await dispatcher.pass() == 2)
        let ids = receiver.posts.map { $0.events.compactMap { $0["id"] as? String }.sorted() }
        #expect(ids.count == 2 && ids[0] == ids[1], "the same events again: \(ids)")

        // A receiver that never takes them: a day later they are given up and counted.
        _ = try await harness.send(["type": "resource", "resource_id": harness.resourceId])
        while try await harness.engine.drain() > 0 {}
        receiver.answer(Array(repeating: 500, count: 10))
        #expect(try await dispatcher.pass() == 0)
        harness.clock.advance(seconds: 25 * 3600)
        #expect(try await dispatcher.pass() == 0)
        state = try await harness.server.admin("GET", "/projects/\(project)/webhooks").array[0]
        #expect(state.int("pending") == 0 && state.int("dropped") == 2, "\(state)")
        let metrics = harness.metrics.render()
        #expect(metrics.contains(#"tern_webhook_events_total{result="dropped"} 2"#), "\(metrics)")
        #expect(metrics.contains(#"tern_webhook_events_total{result="posted"} 2"#))
        #expect(metrics.contains(#"tern_webhook_posts_total{result="failed"} 3"#))
    }

    /// Deliveries closed without a send (here, a cancelled message's) are `push.failed` with their
    /// reason.
    @Test func deliveriesClosedUnsentAreFailedEvents() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.finish() } }
        let (receiver, _) = try await Self.hook(harness, ["push.failed"])
        for token in ["d0", "d1"] { try await harness.subscribe(token) }
        let id = try await harness.send(
            ["type": "resource", "resource_id": harness.resourceId], extra: ["throttle_per_minute": 1])
        try await harness.engine.drain()
        #expect(try await harness.server.admin("POST", "/messages/\(id)/cancel").status == 200)
        try await harness.engine.drain()
        #expect(try await Self.dispatcher(harness).pass() == 1)
        let event = try #require(receiver.posts.first?.events.first)
        #expect(event["type"] as? String == "push.failed" && event["message_id"] as? String == id, "\(event)")
        #expect(event["reason"] as? String == DeliveryBatchRunner.cancelledReason, "\(event)")
    }

    /// A person erased takes the outcomes naming their token out of the webhooks' outbox.
    @Test(arguments: StoreFactory.all)
    func anErasedPersonsWaitingEventsGoWithThem(factory: StoreFactory) async throws {
        let harness = try await DeliveryHarness.make(store: factory)
        defer { Task { await harness.finish() } }
        let (receiver, _) = try await Self.hook(harness, ["push.sent"])
        let erased = try await harness.subscribe("tok_en%1")
        try await harness.subscribe("tokXen%1")
        _ = try await harness.send(["type": "resource", "resource_id": harness.resourceId])
        while try await harness.engine.drain() > 0 {}
        #expect(try await Self.pending(harness) == 2)
        let reply = try await harness.server.admin("DELETE", "/profiles/\(erased)")
        try #require(reply.status == 200, "\(reply.errorText)")
        #expect(
            try await Self.pending(harness) == 1, "the other token's event stays (the pattern's _ is not a wildcard)")
        #expect(try await Self.dispatcher(harness).pass() == 1)
        #expect(receiver.posts.first?.events.first?["token"] as? String == "tokXen%1")
    }

    /// `subscription.changed`: a new subscription, a status changed, a new token; not a subscribe
    /// that changes nothing, nor a repeat of one. `goal.reached`: each goal with its payload. An
    /// erased person's waiting events go with them.
    @Test(arguments: StoreFactory.all)
    func subscriptionsChangesAndGoalsArePosted(factory: StoreFactory) async throws {
        let harness = try await DeliveryHarness.make(store: factory)
        defer { Task { await harness.finish() } }
        let project = harness.server.bootstrap.projectId
        let (receiver, _) = try await Self.hook(harness, ["subscription.changed", "goal.reached"])

        let profile = try await harness.subscribe("s0")
        try await harness.subscribe("s0", time: 2_000)  // the same status: no event
        let body: [String: Any] = ["time": 3_000, "provider": "ios-apns", "subscription_id": "s0"]
        for _ in 0..<2 {
            let suspended = try await harness.server.sdk(.pushSuspend, body, key: "suspend-s0")
            try #require(suspended.status == 200, "\(suspended.errorText)")
        }
        let updated = try await harness.server.sdk(
            .pushUpdate, ["old_subscription_id": "s0", "subscription_id": "s0-new", "provider": "ios-apns"])
        try #require(updated.status == 200, "\(updated.errorText)")
        let unsubscribed = try await harness.server.sdk(
            .pushUnsubscribe, ["time": 4_000, "provider": "ios-apns", "subscription_id": "s0-new"])
        try #require(unsubscribed.status == 200, "\(unsubscribed.errorText)")
        _ = try await harness.server.admin("POST", "/projects/\(project)/pixels", json: ["sid": "shop"])
        let goal = try await harness.server.sdk(
            .eventPost,
            [
                "events": [
                    [
                        "sid": "shop", "client_id": "c-1", "event_name": "purchase", "send_message_id": "m_1.7",
                        "payload": ["sum": 12.5, "note": "a/b \"c\""], "utm": ["campaign": "spring"], "time": 5_000,
                    ]
                ]
            ])
        try #require(goal.status == 200, "\(goal.errorText)")
        #expect(try await Self.pending(harness) == 5, "made, suspended, new token, unsubscribed, one goal")

        #expect(try await Self.dispatcher(harness).pass() == 5)
        let events = receiver.posts.flatMap(\.events).sorted { $0.int("id") < $1.int("id") }
        let changes = events.filter { $0["type"] as? String == "subscription.changed" }
        #expect(changes.map { $0["status"] as? String } == ["subscribed", "suspended", "suspended", "unsubscribed"])
        #expect(changes.map { $0["previous_status"] as? String } == [nil, "subscribed", "suspended", "suspended"])
        #expect(changes.map { $0["token"] as? String } == ["s0", "s0", "s0-new", "s0-new"])
        #expect(changes.map { $0["previous_token"] as? String } == [nil, nil, "s0", nil])
        #expect(
            changes.allSatisfy {
                $0["profile_id"] as? String == profile && $0.int("resource_id") == harness.resourceId
                    && $0["provider"] as? String == "ios-apns"
            }, "\(changes)")
        let reached = try #require(events.first { $0["type"] as? String == "goal.reached" })
        #expect(
            reached["sid"] as? String == "shop" && reached["event_name"] as? String == "purchase"
                && reached["client_id"] as? String == "c-1" && reached["send_message_id"] as? String == "m_1.7"
                && reached.int("time") == 5_000, "\(reached)")
        #expect(reached["payload"] as? NSDictionary == ["sum": 12.5, "note": "a/b \"c\""] as NSDictionary)
        #expect((reached["utm"] as? [String: Any])?["campaign"] as? String == "spring")

        // Erasing a person takes their waiting events (naming their token or their profile) with them.
        let erased = try await harness.subscribe("e0")
        try await harness.subscribe("e1")
        #expect(try await Self.pending(harness) == 2)
        let reply = try await harness.server.admin("DELETE", "/profiles/\(erased)")
        try #require(reply.status == 200, "\(reply.errorText)")
        #expect(try await Self.pending(harness) == 1)
    }

    @Test func aProjectWithoutWebhooksWritesNoEventsAndANewOneIsSeenAtOnce() async throws {
        let harness = try await DeliveryHarness.make()
        defer { Task { await harness.finish() } }
        try await harness.subscribe("d0")
        _ = try await harness.server.admin(
            "POST", "/projects/\(harness.server.bootstrap.projectId)/pixels", json: ["sid": "shop"])
        let goal = try await harness.server.sdk(
            .eventPost, ["events": [["sid": "shop", "event_name": "purchase", "time": 5_000]]])
        try #require(goal.status == 200, "\(goal.errorText)")
        _ = try await harness.send(["type": "resource", "resource_id": harness.resourceId])
        while try await harness.engine.drain() > 0 {}
        let rows = try await harness.server.store.read { tx in
            try integerRows(tx, "SELECT COUNT(*) FROM webhook_events", [])[0][0]
        }
        #expect(rows == 0)
        let (_, made) = try await Self.hook(harness, ["push.sent"])
        _ = try await harness.send(["type": "resource", "resource_id": harness.resourceId])
        while try await harness.engine.drain() > 0 {}
        #expect(try await Self.pending(harness) == 1, "made on this node: its writers know at once")
        let removed = try await harness.server.admin(
            "DELETE", "/projects/\(harness.server.bootstrap.projectId)/webhooks/\(made.json.int("id"))")
        #expect(removed.status == 204)
        #expect(try await Self.pending(harness) == 0)
    }

    @Test func badWebhooksAreRefusedWithWhatToChange() async throws {
        let server = try await InProcessServer()
        defer { Task { await server.finish() } }
        let project = server.bootstrap.projectId
        let path = "/projects/\(project)/webhooks"
        for (json, reason) in [
            (["url": "http://hooks.example.com/t", "events": ["push.sent"]], "url must be https"),
            (["url": "ftp://hooks.example.com/t", "events": ["push.sent"]], "url must be https"),
            (["url": "hooks", "events": ["push.sent"]], "not an absolute URL"),
            (["url": "https://hooks.example.com/t", "events": [String]()], "events is empty"),
            (
                ["url": "https://hooks.example.com/t", "events": ["push.clicked"]],
                "push.clicked, which is not an event"
            ),
        ] as [([String: Any], String)] {
            let reply = try await server.admin("POST", path, json: json)
            #expect(reply.status == 400 && reply.errorText.contains(reason), "\(reply.status) \(reply.errorText)")
        }
        for _ in 0..<WebhookLimits.perProject {
            let reply = try await server.admin(
                "POST", path, json: ["url": "https://hooks.example.com/t", "events": ["push.opened"]])
            #expect(reply.status == 201)
        }
        let eleventh = try await server.admin(
            "POST", path, json: ["url": "https://hooks.example.com/t", "events": ["push.opened"]])
        #expect(eleventh.status == 409 && eleventh.errorText.contains("remove one first"), "\(eleventh.errorText)")
        #expect(try await server.admin("DELETE", "\(path)/999").status == 404)
        #expect(try await server.admin("GET", "/projects/999/webhooks").status == 404)
    }

    /// The event's JSON, written by hand, reads back as the event, quotes and control characters too.
    @Test func anEventsJSONReadsBackAsTheEvent() throws {
        let full = WebhookEvent(
            type: "push.failed", time: 1_765_432_100_000, messageId: "m_3fa2", pushId: "m_3fa2.b.17", deliveryId: 17,
            variant: "b", provider: "ios-apns", token: "ab/cd", reason: "refused: \"BadDeviceToken\"\n\u{1}")
        let plain = WebhookEvent(type: "push.opened", time: 2, messageId: "m_1", pushId: "m_1.3", deliveryId: 3)
        for event in [full, plain] {
            #expect(
                try JSONDecoder().decode(WebhookEvent.self, from: Data(event.json().utf8)) == event, "\(event.json())")
        }
        #expect(
            plain.json() == #"{"type":"push.opened","time":2,"message_id":"m_1","push_id":"m_1.3","delivery_id":3}"#)
    }

    @Test func aBatchPutsEachEventsIdFirst() {
        let body = WebhookDispatcher.body([
            ClaimedWebhookEvent(id: 7, body: #"{"type":"push.sent"}"#, createdAt: 0),
            ClaimedWebhookEvent(id: 8, body: "{}", createdAt: 0),
        ])
        #expect(String(decoding: body, as: UTF8.self) == #"{"events":[{"id":"7","type":"push.sent"},{"id":"8"}]}"#)
        #expect(WebhookLimits.retryDelay(attempts: 1) == 5_000 && WebhookLimits.retryDelay(attempts: 3) == 20_000)
        #expect(WebhookLimits.retryDelay(attempts: 40) == 3_600_000)
    }
}
