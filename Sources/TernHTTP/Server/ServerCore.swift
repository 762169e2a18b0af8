import Foundation
import Synchronization

/// What every event loop and connection of one server shares: the handler, the limits, the
/// connection counts the caps are kept by, and the stopping flags.
final class ServerCore: Sendable {
    struct Limits: Sendable {
        let maxBodyBytes: Int
        let maxHeaderBytes: Int
        /// 0: no deadline of that kind.
        let headSeconds: Int
        let bodySeconds: Int
        let idleSeconds: Int
        let maxConnections: Int
        /// 0: no cap per address.
        let maxPerAddress: Int
    }

    let handler: any HTTPHandler
    let errorResponse: HTTPServer.ErrorResponse
    let limits: Limits
    /// The 408 sent when a body is not complete within `bodySeconds` of its head.
    let lateBody: HTTPResponse
    /// Requests between their head and their answer; `stop()` waits for them.
    let inFlight = Atomic<Int>(0)
    /// Set by `stop()`: answers carry `Connection: close`, idle connections are closed.
    let stopping = Atomic<Bool>(false)
    /// Set when the grace period is over: handlers still running are answered 503.
    let forcing = Atomic<Bool>(false)
    private let open = Mutex<(total: Int, perAddress: [String: Int])>((0, [:]))
    private let ids = Atomic<UInt64>(Poller.wakeID + 2)
    /// The server's loops while it runs, which take its connections in turn.
    private let loops = Mutex<[EventLoop]>([])

    init(handler: any HTTPHandler, errorResponse: @escaping HTTPServer.ErrorResponse, limits: Limits) {
        self.handler = handler
        self.errorResponse = errorResponse
        self.limits = limits
        self.lateBody = errorResponse(
            408, "the request body did not arrive within \(limits.bodySeconds) s of its head: send it at once")
    }

    /// A fresh id for a connection's poller events.
    func nextID() -> UInt64 {
        ids.wrappingAdd(1, ordering: .relaxed).oldValue
    }

    /// The loops new connections go to (none once the server stopped: that breaks their cycle).
    func serve(on loops: [EventLoop]) {
        self.loops.withLock { $0 = loops }
    }

    /// The loop that reads, answers and runs the handlers of the connection numbered `id`: the
    /// loops in turn, whichever accepted it. The kernel wakes one waiting loop per new connection,
    /// and that loop accepts every connection waiting; a burst of 50 once left one loop of four with
    /// 20 and another with none, and since a loop runs its connections' handlers too, its thread
    /// was the bottleneck while another core sat idle.
    func loop(for id: UInt64) -> EventLoop? {
        loops.withLock { $0.isEmpty ? nil : $0[Int(id % UInt64($0.count))] }
    }

    /// Counts a new connection from `address`; false (and nothing counted) past a cap.
    func admit(_ address: String) -> Bool {
        open.withLock { open in
            guard open.total < limits.maxConnections else { return false }
            let mine = open.perAddress[address, default: 0]
            guard limits.maxPerAddress == 0 || mine < limits.maxPerAddress else { return false }
            open.total += 1
            open.perAddress[address] = mine + 1
            return true
        }
    }

    /// Uncounts a closed connection.
    func release(_ address: String) {
        open.withLock { open in
            open.total -= 1
            let mine = open.perAddress[address, default: 1] - 1
            open.perAddress[address] = mine > 0 ? mine : nil
        }
    }
}
