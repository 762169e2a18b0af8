import Foundation
import TernProtocol

/// Drains the outbox: the ordered lane one row at a time in the order written, the events lane in
/// sealed batches, each lane in its own task. Attaches credentials at send time, classifies each
/// answer with the ``RetryPolicy``, and reports the outcome as SDK events, sync states and completions.
actor Sender {
    let store: CoreStore
    let environment: TernEnvironment
    let bus: EventBus
    let auth: AuthSource
    let context: SenderContext
    let completions: CompletionRegistry
    let syncStates: SyncStateHub
    private var lanes: [OutboxLane: Task<Void, Never>] = [:]
    private let signals: [OutboxLane: WakeSignal]
    private var waitReported = false
    /// The event kinds of the core and its modules, to raise a row's stored events.
    private(set) var catalog = EventCatalog()
    /// The modules' body finalizers, for rows written with `needsToken`.
    private var finalizers: [ModuleParts.BodyFinalizer] = []

    init(
        store: CoreStore, environment: TernEnvironment, bus: EventBus, auth: AuthSource, context: SenderContext,
        completions: CompletionRegistry, syncStates: SyncStateHub
    ) {
        self.store = store
        self.environment = environment
        self.bus = bus
        self.auth = auth
        self.context = context
        self.completions = completions
        self.syncStates = syncStates
        var signals: [OutboxLane: WakeSignal] = [:]
        for lane in OutboxLane.allCases { signals[lane] = WakeSignal(clock: environment.clock) }
        self.signals = signals
    }

    /// The event kinds and finalizers of the modules registered so far.
    func use(_ catalog: EventCatalog, _ finalizers: [ModuleParts.BodyFinalizer]) {
        self.catalog = catalog
        self.finalizers = finalizers
    }

    /// Starts both lanes (again, after ``stop()``).
    func start() {
        for lane in OutboxLane.allCases where lanes[lane] == nil {
            lanes[lane] = Task { [weak self] in await self?.run(lane) }
        }
    }

    /// Stops both lanes; a request in flight finishes, nothing new is sent.
    func stop() async {
        let running = lanes
        lanes = [:]
        for task in running.values { task.cancel() }
        for signal in signals.values { await signal.notify() }
        for task in running.values { await task.value }
    }

    /// There may be new work: look now instead of at the next deadline.
    nonisolated func wake() {
        Task { for signal in signals.values { await signal.notify() } }
    }

    /// Wakes the given lanes, without spawning a task (the caller is already async).
    nonisolated func notify(_ lanes: Set<OutboxLane>) async {
        for lane in lanes { await signals[lane]?.notify() }
    }

    private func run(_ lane: OutboxLane) async {
        let signal = signals[lane]!
        while !Task.isCancelled {
            let idle = environment.idlePollInterval
            guard await context.collectionEnabled() else {
                await signal.wait(timeout: idle)
                continue
            }
            let now = environment.clock.now()
            let work: OutboxWork
            do {
                switch lane {
                case .ordered:
                    let (next, expired) = try await store.nextOrdered(now: now)
                    if !expired.isEmpty {
                        await finish(expired, response: nil, state: .failed(reason: "expired unsent"))
                    }
                    work = next
                case .events:
                    work = try await store.nextBatch(now: now, maxSize: environment.maxBatchSize)
                }
            } catch {
                bus.emit(.error("outbox", CoreEvents.databaseError, value: ["reason": "\(error)"]))
                await signal.wait(timeout: idle)
                continue
            }
            switch work {
            case .send(let rows):
                // A send ends in a database write: it gets background time should the app leave the
                // foreground meanwhile, so the app is never suspended inside it (0xdead10cc).
                let background = await environment.lifecycle.beginBackgroundWork("tern.outbox.send")
                let sent = await send(rows, lane: lane)
                await background.end()
                if !sent { await signal.wait(timeout: idle) }
            case .waitUntil(let date):
                await signal.wait(timeout: min(idle, max(0, date.timeIntervalSince(now))))
            case .empty:
                await signal.wait(timeout: idle)
            }
        }
    }

    /// Sends one ordered row or one batch; false when it could not be sent yet (no configuration,
    /// no token) and the lane should wait.
    private func send(_ rows: [OutboxRow], lane: OutboxLane) async -> Bool {
        guard let first = rows.first, let configuration = await context.configuration() else { return false }
        var body: Data
        switch await requestBody(for: rows, lane: lane) {
        case .ready(let data): body = data
        case .wait: return false
        case .handled: return true
        }
        let key = first.batchKey ?? first.idempotencyKey
        guard let url = URL(string: configuration.apiUrl + "/" + first.endpoint.rawValue) else {
            let reason = "cannot make a URL from apiUrl \(configuration.apiUrl)"
            await conclude(rows, .drop(reason: reason), outcome: .network(reason), envelope: nil)
            return true
        }
        let credentials = await auth.credentials(rToken: configuration.rToken)
        if credentials.jwtMissing {
            bus.emit(
                credentials.isEmpty
                    ? .retry(first.meta.function, CoreEvents.jwtIsNil)
                    : .error(first.meta.function, CoreEvents.jwtIsNil))
        }
        let outcome: RetryPolicy.Outcome
        var envelope: ResponseModel.ResponseWithProfile?
        if credentials.isEmpty {
            outcome = .network("no credentials: the JWT provider gave nil and the configuration has no rToken")
        } else {
            var headers = credentials.headers
            headers["Content-Type"] = "application/json"
            headers[Wire.idempotencyKeyHeader] = key
            let request = TransportRequest(
                url: url, method: first.endpoint.method, headers: headers, body: body,
                timeout: environment.requestTimeout)
            do {
                let response = try await environment.transport.send(request)
                envelope = try? JSONDecoder().decode(ResponseModel.ResponseWithProfile.self, from: response.body)
                outcome = .status(response.status, retryAfter: response.headers["retry-after"])
            } catch {
                outcome = .network("\(error)")
            }
        }
        body = Data()
        let now = environment.clock.now()
        let decision = environment.retryPolicy.decide(
            outcome, attempt: first.attempts + 1, firstAttemptAt: first.firstAttemptAt ?? now, now: now,
            retryable: first.meta.retryable, random: environment.random())
        await conclude(rows, decision, outcome: outcome, envelope: envelope)
        return true
    }

    enum Body {
        case ready(Data)
        /// Not sendable yet (no token): wait.
        case wait
        /// The rows were dealt with (dropped).
        case handled
    }

    /// The request body: the row's (with the token filled in, the first time) or the batch's.
    private func requestBody(for rows: [OutboxRow], lane: OutboxLane) async -> Body {
        guard let first = rows.first else { return .handled }
        if lane == .events {
            var body = Data("{".utf8)
            if first.endpoint == .eventPost, let device = await goalBatchDevice(first) {
                body.append(Self.deviceFields(device))
            }
            body.append(contentsOf: Array("\"events\":[".utf8))
            for (index, row) in rows.enumerated() {
                if index > 0 { body.append(UInt8(ascii: ",")) }
                body.append(row.body)
            }
            body.append(contentsOf: Array("]}".utf8))
            return .ready(body)
        }
        guard first.needsToken else { return .ready(first.body) }
        // The modules finalize it (push fills in the device's token); none: it waits.
        guard let ready = await context.ready() else { return .wait }
        for finalize in finalizers {
            switch await finalize(first, ready) {
            case nil:
                continue
            case .wait(let report)?:
                if !waitReported, let report { bus.emit(report) }
                waitReported = true
                return .wait
            case .drop(let reason)?:
                await conclude(rows, .drop(reason: reason), outcome: .network(reason), envelope: nil)
                return .handled
            case .ready(let body)?:
                waitReported = false
                try? await store.finalize(first.id, body: body)
                return .ready(body)
            }
        }
        return .wait
    }
}
