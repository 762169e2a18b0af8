import Foundation
import Synchronization

/// What a pool's connections share: the queue of requests waiting for a stream, the list of
/// connections, and the cancellations asked for. Connections take requests from the queue as
/// their streams free up; the queue opens a connection when none has room.
final class PoolShared: Sendable {
    private struct State {
        var queue = PoolQueue()
        var connections: [PoolConnectionHandle] = []
        var cancelled: Set<UInt64> = []
        var closed = false
        /// No queued request has a deadline before this (it may be later than the true earliest
        /// once requests leave the queue; it is made exact at each look).
        var earliestDeadline = UInt64.max

        var waiting: Int { queue.count }
    }

    let endpoint: PoolEndpoint
    let proxy: HTTP2Proxy?
    let tls: TLSClientContext
    let configuration: HTTP2ConnectionPool.Configuration
    private let state = Mutex(State())
    /// What the connections' loops look at on every round, published by `locked` so that those
    /// looks take no lock: requests waiting, the earliest deadline among them, shut down.
    private let queuedCount = Atomic<Int>(0)
    private let queuedDeadline = Atomic<UInt64>(.max)
    private let closedFlag = Atomic<Bool>(false)
    private let cancelledCount = Atomic<Int>(0)
    /// Bumped on every cancellation, so connections look at the set only when it changed.
    let cancelGeneration = Atomic<Int>(0)
    private let nextConnection = Atomic<Int>(0)
    /// Entered by the loop and every connecting thread while it runs, so shutting down can wait
    /// for them.
    private let threads = DispatchGroup()
    /// Wakes the loop: new requests, cancellations, a connection set up, shutting down.
    let waker = PoolWaker()
    private let loopStarted = Atomic<Bool>(false)
    /// Connections whose TLS is up, waiting for the loop to take them.
    private let connected = Mutex<[TLSHandOver]>([])

    init(
        endpoint: PoolEndpoint, proxy: HTTP2Proxy?, tls: TLSClientContext,
        configuration: HTTP2ConnectionPool.Configuration
    ) {
        self.endpoint = endpoint
        self.proxy = proxy
        self.tls = tls
        self.configuration = configuration
    }

    var connectionCount: Int { state.withLock { $0.connections.count } }

    var isClosed: Bool { closedFlag.load(ordering: .acquiring) }

    /// Every change to the state goes through here, which publishes what the loops read.
    private func locked<T>(_ body: (inout State) -> T) -> T {
        state.withLock { state in
            let result = body(&state)
            queuedCount.store(state.waiting, ordering: .releasing)
            queuedDeadline.store(state.waiting > 0 ? state.earliestDeadline : .max, ordering: .releasing)
            closedFlag.store(state.closed, ordering: .releasing)
            cancelledCount.store(state.cancelled.count, ordering: .releasing)
            return result
        }
    }

    static let shutDownError = HTTP2ClientError(.shutDown, "the HTTP/2 connection pool was shut down")

    /// Queues requests, opens a connection when those open have no room for them, and wakes the
    /// loop.
    func enqueue(_ exchanges: [PoolExchange]) {
        guard !exchanges.isEmpty else { return }
        let (accepted, opened) = locked { state -> (Bool, PoolConnectionHandle?) in
            guard !state.closed else { return (false, nil) }
            state.queue.append(contentsOf: exchanges)
            for exchange in exchanges where exchange.deadline < state.earliestDeadline {
                state.earliestDeadline = exchange.deadline
            }
            return (true, openIfNeeded(&state))
        }
        guard accepted else {
            for exchange in exchanges { exchange.complete(.failure(Self.shutDownError)) }
            return
        }
        waker.wake()
        if let opened { start(opened) }
    }

    /// Up to `limit` requests for a connection, oldest first; those already past their deadline
    /// fail instead.
    func take(_ limit: Int, now: UInt64) -> [PoolExchange] {
        guard limit > 0, queuedCount.load(ordering: .acquiring) > 0 else { return [] }
        var expired: [PoolExchange] = []
        let taken = locked { state -> [PoolExchange] in
            var taken: [PoolExchange] = []
            while taken.count < limit, let exchange = state.queue.popFirst() {
                if exchange.deadline <= now { expired.append(exchange) } else { taken.append(exchange) }
            }
            return taken
        }
        for exchange in expired { exchange.complete(.failure(exchange.timedOut())) }
        return taken
    }

    /// When the first queued request may expire (monotonic nanoseconds; `.max` when none waits).
    var earliestQueuedDeadline: UInt64 { queuedDeadline.load(ordering: .acquiring) }

    /// Fails the queued requests whose deadline has passed while every stream was busy. Cheap
    /// unless one may have: the earliest deadline is kept.
    func expireQueued(now: UInt64) {
        guard now >= queuedDeadline.load(ordering: .acquiring) else { return }
        let expired = locked { state -> [PoolExchange] in
            guard now >= state.earliestDeadline else { return [] }
            let expired = state.queue.remove { $0.deadline <= now }
            state.earliestDeadline = state.queue.waiting.reduce(UInt64.max) { min($0, $1.deadline) }
            return expired
        }
        for exchange in expired { exchange.complete(.failure(exchange.timedOut())) }
    }

    /// Requests a connection took but never sent go back to the front of the queue.
    func giveBack(_ exchanges: [PoolExchange]) {
        guard !exchanges.isEmpty else { return }
        let failed = locked { state -> Bool in
            guard !state.closed else { return true }
            state.queue.prepend(exchanges)
            for exchange in exchanges where exchange.deadline < state.earliestDeadline {
                state.earliestDeadline = exchange.deadline
            }
            return false
        }
        if failed {
            for exchange in exchanges { exchange.complete(.failure(Self.shutDownError)) }
        }
    }

    /// A connection ended (closed, lost, or never established). When it could not be set up and
    /// no other connection is there to take the queue, the queue fails with its reason; otherwise
    /// another connection opens for what still waits.
    func ended(_ handle: PoolConnectionHandle, setUpError: HTTP2ClientError?) {
        let (failed, opened) = locked { state -> ([PoolExchange], PoolConnectionHandle?) in
            state.connections.removeAll { $0 === handle }
            if setUpError != nil, state.connections.isEmpty {
                return (state.queue.removeAll(), nil)
            }
            return ([], openIfNeeded(&state))
        }
        if let setUpError {
            for exchange in failed { exchange.complete(.failure(setUpError)) }
        }
        waker.wake()
        if let opened { start(opened) }
    }

    /// A connection is ready, or its streams freed or its peer raised its limit: more may open
    /// if the queue still outgrows the room.
    func roomChanged() {
        if let opened = locked({ openIfNeeded(&$0) }) { start(opened) }
    }

    /// Cancels a request: one still queued fails at once; one on a connection is reset there.
    func cancel(_ id: UInt64) {
        let queued = locked { state -> PoolExchange? in
            if let queued = state.queue.remove(where: { $0.id == id }).first { return queued }
            state.cancelled.insert(id)
            return nil
        }
        if let queued {
            queued.complete(.failure(CancellationError()))
            return
        }
        cancelGeneration.add(1, ordering: .sequentiallyConsistent)
        waker.wake()
    }

    /// The cancelled ids among `ids`, taken out of the set.
    func takeCancelled(among ids: some Sequence<UInt64>) -> [UInt64] {
        locked { state in
            var found: [UInt64] = []
            for id in ids where state.cancelled.remove(id) != nil { found.append(id) }
            return found
        }
    }

    /// A request finished before its cancellation reached it: forget the cancellation. Takes the
    /// lock only while some cancellation waits for its connection.
    func forgetCancellation(_ id: UInt64) {
        guard cancelledCount.load(ordering: .acquiring) > 0 else { return }
        locked { _ = $0.cancelled.remove(id) }
    }

    func shutDown() {
        let queued = locked { state -> [PoolExchange] in
            state.closed = true
            return state.queue.removeAll()
        }
        for exchange in queued { exchange.complete(.failure(Self.shutDownError)) }
        waker.wake()
        // The threads end within a round of their loops; waiting for them means no TLS session
        // is still being freed when the process exits right after (OpenSSL's exit handler frees
        // what those sessions use).
        _ = threads.wait(timeout: .now() + 2)
    }

    /// Inside the lock: one more connection when the queue outgrows the room of those open (a
    /// connection still opening counts as full room) and the limit allows; the caller `start`s it
    /// outside the lock.
    private func openIfNeeded(_ state: inout State) -> PoolConnectionHandle? {
        guard !state.closed, state.waiting > 0, state.connections.count < configuration.maxConnections else {
            return nil
        }
        let room = state.connections.reduce(0) { $0 + $1.room }
        guard state.waiting > room else { return nil }
        let handle = PoolConnectionHandle(
            number: nextConnection.wrappingAdd(1, ordering: .relaxed).newValue,
            limit: configuration.maxStreamsPerConnection)
        state.connections.append(handle)
        return handle
    }

    /// Sets up a connection `openIfNeeded` added on a thread of its own, and starts the loop the
    /// first time.
    private func start(_ handle: PoolConnectionHandle) {
        if !loopStarted.exchange(true, ordering: .acquiringAndReleasing) {
            threads.enter()
            let loop = Thread { [self] in
                PoolLoop.run(shared: self)
                threads.leave()
            }
            loop.name = "tern-h2-\(endpoint.host)"
            loop.start()
        }
        threads.enter()
        let thread = Thread { [self] in
            connect(handle)
            threads.leave()
        }
        thread.name = "tern-h2-connect-\(handle.number)"
        thread.start()
    }

    /// DNS, TCP (through the proxy if any) and TLS for one connection, then the hand-over to the loop.
    private func connect(_ handle: PoolConnectionHandle) {
        let deadline = DispatchTime.now().uptimeNanoseconds &+ UInt64(configuration.connectTimeout * 1e9)
        do {
            let tls = try TLSStream.connect(to: endpoint, through: proxy, context: self.tls, deadline: deadline)
            let accepted = connected.withLock { connected in
                guard !isClosed else { return false }
                connected.append(TLSHandOver(handle: handle, tls: tls))
                return true
            }
            if accepted {
                waker.wake()
            } else {
                handle.phase = .draining
                ended(handle, setUpError: Self.shutDownError)
            }
        } catch {
            handle.phase = .draining
            ended(handle, setUpError: error)
        }
    }

    /// The connections set up since the loop last looked.
    func takeConnected() -> [TLSHandOver] {
        connected.withLock { connected in
            defer { connected.removeAll() }
            return connected
        }
    }
}

/// A connection whose TLS is up, on its way from its connecting thread to the loop.
struct TLSHandOver: Sendable {
    let handle: PoolConnectionHandle
    let tls: TLSStream
}
