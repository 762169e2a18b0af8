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

    /// The pipe's ends; `closed` is set, and the ends closed, under the lock, so that no wake-up
    /// writes to a descriptor number the process has since reused.
    private struct Pipe {
        var readFD: Int32 = -1
        var writeFD: Int32 = -1
        var closed = false
    }

    let number: Int
    let configuredLimit: Int
    private let phaseValue = Atomic<Int>(Phase.connecting.rawValue)
    let active = Atomic<Int>(0)
    /// SETTINGS_MAX_CONCURRENT_STREAMS from the peer (unlimited until it says).
    let peerLimit = Atomic<Int>(Int.max)
    private let pipeEnds = Mutex(Pipe())
    /// A byte waits in the pipe: further wake-ups need neither the lock nor a write.
    private let wakePending = Atomic<Bool>(false)
    private let readEnd: Int32

    init(number: Int, limit: Int) {
        self.number = number
        configuredLimit = limit
        var fds: [Int32] = [-1, -1]
        if pipe(&fds) == 0 {
            for fd in fds {
                _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
                _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            }
        } else {
            fds = [-1, -1]
        }
        readEnd = fds[0]
        pipeEnds.withLock { ends in
            ends.readFD = fds[0]
            ends.writeFD = fds[1]
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
    var wakeFD: Int32 { readEnd }

    /// Interrupts the connection's `poll`; one byte at most waits in the pipe.
    func wake() {
        guard !wakePending.exchange(true, ordering: .acquiringAndReleasing) else { return }
        pipeEnds.withLock { ends in
            guard !ends.closed, ends.writeFD >= 0 else { return }
            var byte: UInt8 = 1
            _ = write(ends.writeFD, &byte, 1)
        }
    }

    /// Empties the pipe after `poll` (on the connection's own thread, before `close`); wakes
    /// after this call write again.
    func clearWake() {
        guard wakePending.load(ordering: .acquiring), readEnd >= 0 else { return }
        // One byte per wake-up at most, a stray one besides: a read shorter than the buffer
        // has emptied the pipe.
        var buffer = (UInt64(0), UInt64(0))
        while withUnsafeMutableBytes(of: &buffer, { read(readEnd, $0.baseAddress, $0.count) }) == 16 {}
        wakePending.store(false, ordering: .releasing)
    }

    /// Closes the pipe once the thread ends.
    func close() {
        pipeEnds.withLock { ends in
            guard !ends.closed else { return }
            ends.closed = true
            if ends.readFD >= 0 { closeDescriptor(ends.readFD) }
            if ends.writeFD >= 0 { closeDescriptor(ends.writeFD) }
        }
    }
}
