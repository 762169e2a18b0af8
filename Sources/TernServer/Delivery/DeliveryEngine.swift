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
        /// Batches sent at the same time.
        public var concurrency = 4
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

        /// The defaults: 500 deliveries a batch, 4 batches in flight, a 120-second lease.
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
        let now = clock()
        let fanOut = options.fanOut
        return try await store.write { tx in
            guard let message = try tx.messagesFanningOut(limit: 1).first else { return false }
            try fanOut.step(tx, message: message, now: now)
            return true
        }
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
    }

    private func fanOutLoop() async {
        while !stopping, !Task.isCancelled {
            do {
                if try await fanOutStep() {
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
