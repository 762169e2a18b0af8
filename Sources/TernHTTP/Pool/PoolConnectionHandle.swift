import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What the rest of the pool sees of one connection: its phase, its streams in use, the peer's
/// stream limit, and a pipe that wakes its thread out of `poll`.
final class PoolConnectionHandle: Sendable {
    enum Phase: Int {
        case connecting = 0
        case ready = 1
        /// GOAWAY received, or the connection is closing: it takes no new requests.
        case draining = 2
    }

    private struct Wake {
        var readFD: Int32 = -1
        var writeFD: Int32 = -1
        var pending = false
        var closed = false
    }

    let number: Int
    let configuredLimit: Int
    private let phaseValue = Atomic<Int>(Phase.connecting.rawValue)
    let active = Atomic<Int>(0)
    /// SETTINGS_MAX_CONCURRENT_STREAMS from the peer (unlimited until it says).
    let peerLimit = Atomic<Int>(Int.max)
    private let wakeState = Mutex(Wake())

    init(number: Int, limit: Int) {
        self.number = number
        configuredLimit = limit
        var fds: [Int32] = [-1, -1]
        if pipe(&fds) == 0 {
            for fd in fds {
                _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
                _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            }
            wakeState.withLock { wake in
                wake.readFD = fds[0]
                wake.writeFD = fds[1]
            }
        }
    }

    var phase: Phase {
        get { Phase(rawValue: phaseValue.load(ordering: .acquiring)) ?? .draining }
        set { phaseValue.store(newValue.rawValue, ordering: .releasing) }
    }

    /// Streams the connection may still open.
    var limit: Int { min(configuredLimit, peerLimit.load(ordering: .relaxed)) }

    /// Requests this connection can take now; a connection still opening counts as all room.
    var room: Int {
        switch phase {
        case .connecting: configuredLimit
        case .ready: max(0, limit - active.load(ordering: .relaxed))
        case .draining: 0
        }
    }

    var hasRoom: Bool { phase == .ready && room > 0 }

    /// The end `poll` watches; -1 when the pipe could not be made (the loop then polls briefly).
    var wakeFD: Int32 { wakeState.withLock { $0.readFD } }

    /// Interrupts the connection's `poll`; one byte at most waits in the pipe.
    func wake() {
        wakeState.withLock { wake in
            guard !wake.closed, !wake.pending, wake.writeFD >= 0 else { return }
            wake.pending = true
            var byte: UInt8 = 1
            _ = write(wake.writeFD, &byte, 1)
        }
    }

    /// Empties the pipe after `poll`; wakes after this call write again.
    func clearWake() {
        wakeState.withLock { wake in
            guard !wake.closed, wake.pending else { return }
            var buffer = [UInt8](repeating: 0, count: 16)
            while read(wake.readFD, &buffer, buffer.count) > 0 {}
            wake.pending = false
        }
    }

    /// Closes the pipe once the thread ends.
    func close() {
        wakeState.withLock { wake in
            guard !wake.closed else { return }
            wake.closed = true
            if wake.readFD >= 0 { closeDescriptor(wake.readFD) }
            if wake.writeFD >= 0 { closeDescriptor(wake.writeFD) }
        }
    }
}
