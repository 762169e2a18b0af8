import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The one thread that serves all of a pool's connections, as an event loop: a round of every
/// connection, then one `poll` over all their sockets and the pool's wake-up pipe. Connections are
/// set up (DNS, TCP, TLS) on threads of their own and handed over once TLS is up, so a slow
/// connect never stalls the others.
enum PoolLoop {
    static func run(shared: PoolShared) {
        var connections: [PoolConnection] = []
        while true {
            for handOver in shared.takeConnected() {
                let connection = PoolConnection(handle: handOver.handle, shared: shared, tls: handOver.tls)
                if connection.start() {
                    connections.append(connection)
                } else {
                    connection.finish()
                }
            }
            if shared.isClosed {
                for connection in connections { connection.finish() }
                shared.waker.close()
                return
            }
            shared.expireQueued(now: DispatchTime.now().uptimeNanoseconds)
            var progressed = false
            connections.removeAll { connection in
                let round = connection.step()
                progressed = progressed || round.progressed
                if round.ended { connection.finish() }
                return round.ended
            }
            if !progressed { wait(for: connections, shared: shared) }
        }
    }

    /// Sleeps until a socket or the pool has something, the next deadline, or a second.
    private static func wait(for connections: [PoolConnection], shared: PoolShared) {
        let now = DispatchTime.now().uptimeNanoseconds
        var earliest = min(now + 1_000_000_000, shared.earliestQueuedDeadline)
        var requests: [pollfd] = []
        requests.reserveCapacity(connections.count + 1)
        for connection in connections {
            earliest = min(earliest, connection.nextDeadline)
            requests.append(connection.pollRequest)
        }
        let wakeFD = shared.waker.readFD
        if wakeFD >= 0 { requests.append(pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0)) }
        var milliseconds = Int32(clamping: (earliest > now ? earliest - now : 0) / 1_000_000 + 1)
        if wakeFD < 0 { milliseconds = min(milliseconds, 5) }
        _ = poll(&requests, nfds_t(requests.count), milliseconds)
        shared.waker.clear()
    }
}
