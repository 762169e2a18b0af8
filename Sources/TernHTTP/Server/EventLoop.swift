import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One event-loop thread: it accepts from the shared listening socket (each loop watches it; the
/// kernel wakes one), reads the connections it accepted and writes what could not be written at
/// once, and four times a second applies the deadlines. It is also the executor its requests'
/// handlers run on: a whole request becomes a `Task` that prefers this loop (``TaskExecutor``), and
/// that task writes its own answer (`Connection`).
///
/// Why the handlers run here and not on the global pool: there, each request was handed from this
/// thread to a pool thread, and a write's answer from the store's writer to a pool thread again,
/// each hand-over a wake-up of another thread; the answer was then written from the pool thread
/// while this one watched the same connection. Here, a request's task starts on the thread that
/// read it, and a batch of writes committed together wakes each loop once for all its answers.
final class EventLoop: Sendable {
    static let listenerID = Poller.wakeID + 1

    let core: ServerCore
    let poller: Poller
    private let listening: Int32
    private let connections = Mutex<[UInt64: Connection]>([:])
    private let running = Atomic<Bool>(false)
    private let finished = Atomic<Bool>(true)
    private let jobs = Mutex(Jobs())

    /// The jobs waiting to run on this loop's thread.
    private struct Jobs: ~Copyable {
        var queue: [UnownedJob] = []
        /// The thread is (about to be) blocked in the poller: a job added must wake it.
        var sleeping = false
        /// The thread has ended: jobs go to the global executor instead.
        var ended = false
    }

    init(core: ServerCore, listening: Int32) throws(HTTPServerError) {
        self.core = core
        self.listening = listening
        self.poller = try Poller()
    }

    /// Starts the loop's thread.
    func start() {
        guard !running.exchange(true, ordering: .relaxed) else { return }
        finished.store(false, ordering: .relaxed)
        poller.add(listening, id: Self.listenerID, read: true, write: false, exclusive: true)
        Thread.detachNewThread { [self] in
            Thread.current.name = "tern.http"  // what top and a profile call the thread
            run()
            finished.store(true, ordering: .releasing)
        }
    }

    /// No new connections on this loop.
    func stopAccepting() {
        poller.remove(listening)
    }

    /// Ends the thread, closing every connection still open; returns once it is done.
    func stop() {
        guard running.exchange(false, ordering: .relaxed) else { return }
        poller.signal()
        while !finished.load(ordering: .acquiring) { usleep(1_000) }
    }

    /// The connections open on this loop.
    var open: [Connection] {
        connections.withLock { Array($0.values) }
    }

    /// A connection closed (under its own lock): its events are ignored from now on.
    func forget(_ id: UInt64) {
        _ = connections.withLock { $0.removeValue(forKey: id) }
    }

    private func run() {
        var events: [PollEvent] = []
        var scratch = [UInt8](repeating: 0, count: 1 << 16)
        var ready: [UnownedJob] = []
        var lastSweep = ContinuousClock.now
        var acceptingAgain: ContinuousClock.Instant?
        while running.load(ordering: .relaxed) {
            // Blocks only when no job waits; a job added meanwhile signals the poller.
            let idle = jobs.withLock { jobs in
                jobs.sleeping = jobs.queue.isEmpty
                return jobs.sleeping
            }
            poller.wait(timeoutMilliseconds: idle ? (acceptingAgain == nil ? 250 : 50) : 0, into: &events)
            for event in events {
                if event.id == Self.listenerID {
                    if !accept() {
                        // Out of descriptors: the socket stays readable; look again shortly, not at once.
                        poller.remove(listening)
                        acceptingAgain = .now + .milliseconds(100)
                    }
                } else if let connection = connections.withLock({ $0[event.id] }) {
                    connection.ready(readable: event.readable, writable: event.writable, scratch: &scratch)
                }
            }
            runJobs(&ready)
            let now = ContinuousClock.now
            if let again = acceptingAgain, now >= again {
                acceptingAgain = nil
                if !core.stopping.load(ordering: .relaxed) {
                    poller.add(listening, id: Self.listenerID, read: true, write: false, exclusive: true)
                }
            }
            if now - lastSweep >= .milliseconds(250) {
                lastSweep = now
                for connection in open { connection.sweep(now: now) }
            }
        }
        for connection in open { connection.shutDown() }
        // Tasks still running (a handler past the grace period) go on on the global executor.
        let left = jobs.withLock { jobs in
            jobs.ended = true
            defer { jobs.queue = [] }
            return jobs.queue
        }
        for job in left { globalConcurrentExecutor.enqueue(ExecutorJob(job)) }
    }

    /// Runs the jobs waiting now; those they add run in the next round, after the poller's events.
    private func runJobs(_ ready: inout [UnownedJob]) {
        jobs.withLock { jobs in
            jobs.sleeping = false
            swap(&ready, &jobs.queue)
        }
        let executor = asUnownedTaskExecutor()
        for job in ready { job.runSynchronously(on: executor) }
        ready.removeAll(keepingCapacity: true)
    }

    /// Accepts until the backlog is empty; false when out of descriptors.
    private func accept() -> Bool {
        while true {
            var address = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let fd = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { systemAccept(listening, $0, &length) }
            }
            guard fd >= 0 else {
                switch errno {
                case EINTR, ECONNABORTED: continue
                case EMFILE, ENFILE, ENOBUFS, ENOMEM: return false
                default: return true
                }
            }
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            var one: Int32 = 1
            // TCP_NODELAY (1 on Linux and Darwin): an answer is one write, it need not wait for an ACK.
            _ = setsockopt(fd, Int32(IPPROTO_TCP), 1, &one, socklen_t(MemoryLayout<Int32>.size))
            #if canImport(Darwin)
                _ = setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
            #endif
            let host = Self.host(&address)
            guard core.admit(host) else {
                close(fd)
                continue
            }
            let id = core.nextID()
            let loop = core.loop(for: id) ?? self
            loop.adopt(Connection(id: id, fd: fd, address: host, loop: loop), fd: fd)
        }
    }

    /// Reads and answers `connection` from this loop (called from the loop that accepted it).
    private func adopt(_ connection: Connection, fd: Int32) {
        connections.withLock { $0[connection.id] = connection }
        poller.add(fd, id: connection.id, read: true, write: false)
    }

    private static func host(_ address: inout sockaddr_storage) -> String {
        var text = [CChar](repeating: 0, count: 64)
        withUnsafePointer(to: &address) { pointer in
            if Int32(pointer.pointee.ss_family) == AF_INET {
                pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                    var raw = $0.pointee.sin_addr
                    _ = inet_ntop(AF_INET, &raw, &text, socklen_t(text.count))
                }
            } else if Int32(pointer.pointee.ss_family) == AF_INET6 {
                pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                    var raw = $0.pointee.sin6_addr
                    _ = inet_ntop(AF_INET6, &raw, &text, socklen_t(text.count))
                }
            }
        }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

extension EventLoop: TaskExecutor {
    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let (wake, ended) = jobs.withLock { jobs -> (Bool, Bool) in
            guard !jobs.ended else { return (false, true) }
            jobs.queue.append(job)
            defer { jobs.sleeping = false }
            return (jobs.sleeping, false)
        }
        if ended { return globalConcurrentExecutor.enqueue(ExecutorJob(job)) }
        if wake { poller.signal() }
    }
}

/// accept(2), under a name that does not collide with the loop's own `accept()`.
private func systemAccept(_ fd: Int32, _ address: UnsafeMutablePointer<sockaddr>, _ length: inout socklen_t) -> Int32 {
    accept(fd, address, &length)
}
