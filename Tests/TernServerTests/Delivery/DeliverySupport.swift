import Foundation
import Synchronization
import TernProtocol
import Testing

@testable import TernServer

/// The server's clock plus an offset the tests move forward by hand: leases and retries fall due
/// when the test says so, while the API's own timestamps (taken from the real clock) stay in order
/// with the engine's. A frozen one moves only by hand: for a test whose times are seconds apart,
/// which a stalled run (the whole suite in parallel on two cores) would otherwise cross by itself.
final class ManualClock: Sendable {
    private let offset = Mutex<Int64>(0)
    /// The time it stopped at, when frozen.
    private let frozenAt: Int64?

    init(frozen: Bool = false) {
        frozenAt = frozen ? ServerClock.milliseconds() : nil
    }

    var milliseconds: Int64 { (frozenAt ?? ServerClock.milliseconds()) + offset.withLock { $0 } }

    func advance(seconds: Double) { offset.withLock { $0 += Int64(seconds * 1000) } }

    var function: @Sendable () -> Int64 { { [self] in milliseconds } }
}

/// A provider client that records what it was given and answers what the test scripted: the double
/// of the network peer for engine tests (the real peers are the provider clients' tests).
final class RecordingSender: PushSender {
    let provider: PushProvider
    private let state = Mutex<State>(State())

    struct State {
        var batches: [[OutgoingPush]] = []
        /// Outcome by token; absent tokens are sent.
        var scripted: [String: [DeliveryOutcome]] = [:]
        /// While true, `send` waits (a batch caught in flight).
        var held = false
        /// Batches answered before `held` turns on by itself.
        var holdAfter: Int?
        /// The answer to a push without a script (default: sent with the id `apns-<delivery>`).
        var answer: (@Sendable (OutgoingPush) -> DeliveryOutcome)?
    }

    init(provider: PushProvider = .apns) { self.provider = provider }

    /// Answers `outcomes` for `token`, one per attempt; the last one repeats.
    func script(_ token: String, _ outcomes: [DeliveryOutcome]) {
        state.withLock { $0.scripted[token] = outcomes }
    }

    /// Answers every push without a script with `answer`'s outcome for it.
    func answer(_ answer: @escaping @Sendable (OutgoingPush) -> DeliveryOutcome) {
        state.withLock { $0.answer = answer }
    }

    /// The next batches wait until `release()`.
    func hold() { state.withLock { $0.held = true } }

    /// Answers `count` batches, then holds every later one.
    func hold(afterBatches count: Int) { state.withLock { $0.holdAfter = count } }

    func release() {
        state.withLock {
            $0.held = false
            $0.holdAfter = nil
        }
    }

    var batches: [[OutgoingPush]] { state.withLock { $0.batches } }
    var pushes: [OutgoingPush] { batches.flatMap { $0 } }

    func send(_ pushes: [OutgoingPush]) async -> [Int64: DeliveryOutcome] {
        state.withLock { state in
            state.batches.append(pushes)
            if let limit = state.holdAfter, state.batches.count > limit { state.held = true }
        }
        while state.withLock({ $0.held }) {
            try? await Task.sleep(for: .milliseconds(5))
        }
        return state.withLock { state in
            var outcomes: [Int64: DeliveryOutcome] = [:]
            for push in pushes {
                var queue = state.scripted[push.token] ?? []
                let outcome =
                    queue.first ?? state.answer?(push) ?? .sent(providerMessageId: "apns-\(push.deliveryId)")
                if queue.count > 1 { queue.removeFirst() }
                state.scripted[push.token] = queue.isEmpty ? nil : queue
                outcomes[push.deliveryId] = outcome
            }
            return outcomes
        }
    }
}

/// An in-process server (real router, a real SQLite file or PostgreSQL schema) with devices subscribed through the SDK
/// API, messages made through the admin API, and an engine with a recording sender and a manual clock.
struct DeliveryHarness {
    let server: InProcessServer
    let clock: ManualClock
    let sender: RecordingSender
    let senders: SenderRegistry
    let engine: DeliveryEngine
    let metrics: Metrics

    /// `others`: senders for providers besides APNs (FCM, HMS), registered beside ``sender``;
    /// `frozenClock`: time moves only when the test advances it (``ManualClock/init(frozen:)``), for
    /// the engine and for the messages the API makes.
    static func make(
        options: DeliveryEngine.Options = DeliveryEngine.Options(), register: Bool = true,
        store factory: StoreFactory = .sqlite, jitter: @escaping @Sendable () -> Double = { 0.5 },
        others: [RecordingSender] = [], frozenClock: Bool = false
    ) async throws -> DeliveryHarness {
        let clock = ManualClock(frozen: frozenClock)
        // Goals and reports are received on the harness's clock, as the runners and the engine run on it.
        let server = try await InProcessServer(factory, clock: clock.function, messagesOnClock: frozenClock)
        let sender = RecordingSender()
        let senders = SenderRegistry(register ? [sender] + others : [])
        let metrics = Metrics()
        let engine = DeliveryEngine(
            store: server.store, senders: senders, metrics: metrics, logger: Logger(minimum: .error, sink: { _ in }),
            options: options, clock: clock.function, jitter: jitter)
        return DeliveryHarness(
            server: server, clock: clock, sender: sender, senders: senders, engine: engine, metrics: metrics)
    }

    func finish() async { await server.finish() }

    var resourceId: Int64 { server.bootstrap.resourceId }

    /// Subscribes a device through `push/subscribe` (rToken): a profile per token unless the JWT names one.
    @discardableResult
    func subscribe(
        _ token: String, provider: String = "ios-apns", endpoint: Endpoint = .pushSubscribe, time: Int64 = 1000,
        cats: [String: Bool] = [:], fields: [String: Any] = [:]
    ) async throws -> String {
        var body: [String: Any] = ["time": time, "provider": provider, "subscription_id": token, "sync": true]
        if !cats.isEmpty { body["cats"] = cats.map { ["name": $0.key, "active": $0.value] } }
        if !fields.isEmpty { body["custom_fields"] = fields }
        let reply = try await server.sdk(endpoint, body)
        try #require(reply.status == 200, "subscribe \(token): \(reply.status) \(reply.errorText)")
        return try #require(reply.profile?.id)
    }

    func addCategory(_ name: String) async throws {
        let reply = try await server.admin("PUT", "/resources/\(resourceId)/categories/\(name)", json: ["title": name])
        try #require(reply.status == 200)
    }

    /// `POST /admin/messages`; the reply as the test sees it.
    func create(_ json: [String: Any]) async throws -> InProcessServer.Reply {
        try await server.admin("POST", "/messages", json: json)
    }

    /// Creates an alert to `audience` and answers its id.
    func send(_ audience: [String: Any], extra: [String: Any] = [:]) async throws -> String {
        var json: [String: Any] = ["title": "Hi", "body": "Hello", "audience": audience]
        json.merge(extra) { _, new in new }
        let reply = try await create(json)
        try #require(reply.status == 201, "create: \(reply.status) \(reply.errorText)")
        return try #require(reply.json["id"] as? String)
    }

    func stats(_ id: String) async throws -> [String: Any] {
        let reply = try await server.admin("GET", "/messages/\(id)/stats")
        try #require(reply.status == 200, "stats: \(reply.status) \(reply.errorText)")
        return reply.json
    }

    func deliveries(_ id: String) async throws -> [[String: Any]] {
        let reply = try await server.admin("GET", "/messages/\(id)/deliveries", query: ["limit": "1000"])
        try #require(reply.status == 200)
        return reply.array
    }

    /// Tokens the sender was given, sorted.
    var sentTokens: [String] { sender.pushes.map(\.token).sorted() }
}

extension [String: Any] {
    func int(_ key: String) -> Int64 { (self[key] as? NSNumber)?.int64Value ?? -1 }
}
