import Foundation

/// The sending loop: finishes fan-outs chunk by chunk, claims due deliveries in batches under a
/// lease, sends each batch through its providers' senders (several batches in flight), and records
/// the outcomes. Everything it knows is in the store, so a restart loses nothing and resends only
/// what was in flight when it stopped (once those leases run out).
///
/// ```swift
/// let engine = DeliveryEngine(store: store, senders: senders, metrics: metrics, logger: logger)
/// await engine.start()
/// engine.wake()          // a message was queued
/// await engine.stop()    // on SIGTERM: batches in flight finish and are recorded
/// ```
public actor DeliveryEngine {
    /// How the engine batches and paces its work; the defaults suit one node (`--delivery-*` sets
    /// them for `tern serve`).
    public struct Options: Sendable, Equatable {
        /// Deliveries claimed per batch.
        public var batchSize = 500
        /// Batches sent at the same time. A batch is answered no sooner than one round trip to the
        /// provider, so this times ``batchSize`` is the pushes in flight, and over the round trip it
        /// bounds the rate: 16 batches of 500 keep 8,000 in flight, 80,000 pushes a second at 100 ms
        /// to APNs. With 4, a send through an APNs stand-in 100 ms away (round trip) reached 14,904
        /// deliveries a second against 35,682 with 16, and on loopback they were alike
        /// (docs/scaling.md, "APNs 40 and 100 ms away").
        public var concurrency = 16
        /// How long a claim holds a delivery; a worker that dies gives it back when this runs out.
        /// Keep it well above the senders' request timeouts.
        var lease: TimeInterval = 120
        /// How often an idle loop looks at the store (other nodes may have queued work).
        var idlePoll: Duration = .seconds(1)
        /// How fan-outs are cut into transactions (subscriptions looked at per chunk).
        public var fanOut = FanOut()
        var retry = DeliveryRetryPolicy()
        /// How long `stop()` waits for batches in flight before abandoning them to their leases.
        var stopGrace: Duration = .seconds(10)
        /// How long a fan-out that hands its chunks to the senders waits for them to take the last
        /// one before it writes the next chunk queued instead (a stalled provider does not hold it).
        var handOffWait: Duration = .milliseconds(100)

        /// The defaults: 500 deliveries a batch, 16 batches in flight, a 120-second lease.
        public init() {}
    }

    let options: Options
    let store: any Store
    let logger: Logger
    let runner: DeliveryBatchRunner
    let clock: @Sendable () -> Int64
    /// Rung by a new message and by every fan-out chunk written: the claim loop has work.
    private let doorbell = Doorbell()
    /// Rung by a new message: the fan-out loop has work.
    private let fanOutBell = Doorbell()
    private var loop: Task<Void, Never>?
    private var stopping = false
    /// Batches the fan-out wrote already leased (``FanOut/Lease``), waiting for a free slot; the
    /// claim loop takes them before it claims.
    private var handedOff: [(work: [DeliveryBatchRunner.Work], leaseUntil: Int64)] = []

    /// Makes an engine; it does nothing until ``start()``.
    ///
    /// - Parameters:
    ///   - store: Where messages, deliveries and their outcomes are kept.
    ///   - senders: The provider clients pushes go through, by provider.
    ///   - metrics: Where sends, outcomes and batch timings are counted.
    ///   - logger: Where failures of the loop are logged.
    ///   - options: Batch size, batches in flight, lease and retries; the defaults when left out.
    ///   - clock: The current time in milliseconds since 1970 (tests pass their own).
    ///   - jitter: A number in `0..<1` that spreads retry delays; random by default.
    public init(
        store: any Store, senders: SenderRegistry, metrics: Metrics, logger: Logger, options: Options = Options(),
        clock: @escaping @Sendable () -> Int64 = ServerClock.milliseconds,
        jitter: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
    ) {
        self.options = options
        self.store = store
        self.logger = logger
        self.clock = clock
        runner = DeliveryBatchRunner(
            store: store, senders: senders, metrics: metrics, logger: logger,
            resolver: OutcomeResolver(policy: options.retry),
            leaseMilliseconds: Int64((options.lease * 1000).rounded()), clock: clock, jitter: jitter)
    }

    /// Starts the loop (once).
    public func start() {
        guard loop == nil, !stopping else { return }
        loop = Task { await self.run() }
    }

    /// Tells the loop there is work now instead of at its next poll.
    public nonisolated func wake() {
        Task {
            await fanOutBell.ring()
            await doorbell.ring()
        }
    }

    /// Stops claiming; batches in flight finish and are recorded (up to `stopGrace`, after which they are
    /// left to their leases).
    public func stop() async {
        stopping = true
        await doorbell.ring()
        await fanOutBell.ring()
        guard let loop else { return }
        let grace = options.stopGrace
        let finished = await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                await loop.value
                return true
            }
            group.addTask {
                try? await Task.sleep(for: grace)
                return false
            }
            let first = await group.next() ?? true
            group.cancelAll()
            return first
        }
        if !finished {
            loop.cancel()
            logger.warn("delivery batches still in flight at stop; their leases will hand them back", [:])
        }
        self.loop = nil
    }

    /// Works until nothing is due now: every fan-out finished, every due delivery sent or rescheduled.
    /// Returns how many deliveries were claimed. For tests and one-shot tools; `start()` runs the loop.
    @discardableResult
    func drain() async throws -> Int {
        var claimed = 0
        while try await fanOutStep() {}
        while true {
            let batch = try await runner.claim(limit: options.batchSize)
            if batch.claimed == 0 { return claimed }
            claimed += batch.claimed
            await runner.process(batch.work)
        }
    }

    /// One chunk of the oldest unfinished fan-out; false when there is none.
    func fanOutStep() async throws -> Bool {
        try await fanOutStep(handOff: false) != nil
    }

    /// One chunk of the oldest unfinished fan-out, nil when there is none; true when it was handed to
    /// the senders.
    ///
    /// A chunk written queued is claimed next: an `UPDATE` of each row on the store's one writer and
    /// a read of its subscription and message, a third of the writer's work per delivery in a send
    /// and the reads besides. When the senders have room, the fan-out is the only one running and
    /// no other message's deliveries are due (they keep their turns), the chunk's rows are written
    /// leased instead, as a claim would leave them, and sent with what this transaction read.
    private func fanOutStep(handOff: Bool) async throws -> Bool? {
        let now = clock()
        let fanOut = options.fanOut
        let leaseUntil = now + runner.leaseMilliseconds
        let step = try await store.write { tx -> (message: StoredMessage, written: FanOut.Written)? in
            let fanningOut = try tx.messagesFanningOut(limit: 2, now: now)
            guard let message = fanningOut.first else { return nil }
            var lease: FanOut.Lease?
            if handOff, fanningOut.count == 1, try !tx.anotherMessageDue(than: message.id, now: now) {
                lease = FanOut.Lease(until: leaseUntil)
            }
            return (message, try fanOut.step(tx, message: message, now: now, lease: lease))
        }
        guard let (message, written) = step else { return nil }
        await store.deliveriesWritten(written.added)
        guard !written.leased.isEmpty else { return false }
        var subscriptions: [Int64: PushState] = [:]
        for (delivery, subscription) in written.leased { subscriptions[delivery.subscriptionId] = subscription }
        let work = try await runner.settle(
            written.leased.map(\.delivery), messages: [message.id: message], subscriptions: subscriptions, now: now)
        for start in stride(from: 0, to: work.count, by: options.batchSize) {
            handedOff.append((Array(work[start..<min(work.count, start + options.batchSize)]), leaseUntil))
        }
        return true
    }

    /// Room for the fan-out to hand off its next chunk: a round of batches beyond those in flight.
    private var handOffRoom: Int {
        max(0, options.batchSize * options.concurrency - handedOff.reduce(0) { $0 + $1.work.count })
    }

    /// The next batch the fan-out handed off. One whose lease is half gone (the senders stalled) is
    /// left to be claimed again when the lease runs out: it must not be sent twice.
    private func takeHandedOff() -> [DeliveryBatchRunner.Work]? {
        while !handedOff.isEmpty {
            let batch = handedOff.removeFirst()
            if clock() < batch.leaseUntil - runner.leaseMilliseconds / 2 { return batch.work }
            logger.warn(
                "handed-off deliveries waited half their lease; they are claimed again when it ends",
                ["count": batch.work.count])
        }
        return nil
    }

    /// Two loops side by side. Fan-outs write their deliveries chunk by chunk, and sending claims them
    /// as they appear: when one loop ran a fan-out chunk (then 5,000 rows) before each claim, the
    /// chunks held the writer while the batches in flight waited behind them, and a message to 50,000
    /// devices had 3,500 sent when its fan-out ended at 0.66 s (the provider connections idle); with
    /// the loops apart and chunks of 1,000, the store's writer takes the two kinds of write in turn,
    /// and 5,000 were sent by 0.43 s while the fan-out went on.
    private func run() async {
        async let fanOuts: Void = fanOutLoop()
        await claimLoop()
        await fanOuts
        // Batches handed off are claimed already: on stop they are sent and recorded like those in flight.
        let runner = runner
        await withTaskGroup(of: Void.self) { group in
            while let work = takeHandedOff() { group.addTask { await runner.process(work) } }
        }
    }

    /// While it hands chunks off, the fan-out keeps pace with the senders: with a round waiting, it
    /// waits for the claim loop to take a batch (it rings `fanOutBell`), at most `handOffWait`; when
    /// the senders took nothing in that time, it writes on queued until they take one again.
    private func fanOutLoop() async {
        var stalled = false
        while !stopping, !Task.isCancelled {
            do {
                if handOffRoom > 0 {
                    stalled = false
                } else if !stalled {
                    let deadline = ContinuousClock.now + options.handOffWait
                    while handOffRoom == 0, !stopping {
                        let left = deadline - .now
                        if left <= .zero {
                            stalled = true
                            break
                        }
                        await fanOutBell.wait(upTo: left)
                    }
                }
                if try await fanOutStep(handOff: handOffRoom > 0) != nil {
                    await doorbell.ring()
                } else {
                    await fanOutBell.wait(upTo: options.idlePoll)
                }
            } catch {
                logger.error("delivery fan-out", ["error": "\(error)"])
                await fanOutBell.wait(upTo: options.idlePoll)
            }
        }
    }

    private func claimLoop() async {
        let runner = runner
        await withTaskGroup(of: Void.self) { group in
            var inFlight = 0
            while !stopping, !Task.isCancelled {
                do {
                    if inFlight >= options.concurrency {
                        await group.next()
                        inFlight -= 1
                        continue
                    }
                    if let work = takeHandedOff() {
                        group.addTask { await runner.process(work) }
                        inFlight += 1
                        await fanOutBell.ring()
                        continue
                    }
                    let batch = try await runner.claim(limit: options.batchSize)
                    if batch.claimed > 0 {
                        group.addTask { await runner.process(batch.work) }
                        inFlight += 1
                    } else if inFlight > 0 {
                        await group.next()
                        inFlight -= 1
                    } else {
                        await doorbell.wait(upTo: try await idleWait())
                    }
                } catch {
                    logger.error("delivery loop", ["error": "\(error)"])
                    await doorbell.wait(upTo: options.idlePoll)
                }
            }
            await group.waitForAll()
        }
    }

    /// Until the next delivery falls due, at most the idle poll.
    private func idleWait() async throws -> Duration {
        guard let due = try await store.read({ try $0.nextDeliveryDue() }) else { return options.idlePoll }
        let milliseconds = max(0, due - clock())
        return min(options.idlePoll, .milliseconds(milliseconds))
    }
}
