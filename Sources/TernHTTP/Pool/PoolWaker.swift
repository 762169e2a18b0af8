import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A pipe that wakes the pool's loop out of `poll`: new requests, a cancellation, a connection
/// set up, shutting down. One byte at most waits in it.
final class PoolWaker: Sendable {
    /// The pipe's ends; `closed` is set, and the ends closed, under the lock, so that no wake-up
    /// writes to a descriptor number the process has since reused.
    private struct Pipe {
        var readFD: Int32 = -1
        var writeFD: Int32 = -1
        var closed = false
    }

    private let ends = Mutex(Pipe())
    /// A byte waits in the pipe: further wake-ups need neither the lock nor a write.
    private let pending = Atomic<Bool>(false)
    /// The end `poll` watches; -1 when the pipe could not be made (the loop then polls briefly).
    let readFD: Int32

    init() {
        var fds: [Int32] = [-1, -1]
        if pipe(&fds) == 0 {
            for fd in fds {
                _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
                _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            }
        } else {
            fds = [-1, -1]
        }
        readFD = fds[0]
        ends.withLock { ends in
            ends.readFD = fds[0]
            ends.writeFD = fds[1]
        }
    }

    deinit {
        close()
    }

    func wake() {
        guard !pending.exchange(true, ordering: .acquiringAndReleasing) else { return }
        ends.withLock { ends in
            guard !ends.closed, ends.writeFD >= 0 else { return }
            var byte: UInt8 = 1
            _ = write(ends.writeFD, &byte, 1)
        }
    }

    /// Empties the pipe after `poll` (on the loop's thread, before `close`); wakes after this call
    /// write again.
    func clear() {
        guard pending.load(ordering: .acquiring), readFD >= 0 else { return }
        // One byte per wake-up at most, a stray one besides: a read shorter than the buffer has
        // emptied the pipe.
        var buffer = (UInt64(0), UInt64(0))
        while withUnsafeMutableBytes(of: &buffer, { read(readFD, $0.baseAddress, $0.count) }) == 16 {}
        pending.store(false, ordering: .releasing)
    }

    func close() {
        ends.withLock { ends in
            guard !ends.closed else { return }
            ends.closed = true
            if ends.readFD >= 0 { closeDescriptor(ends.readFD) }
            if ends.writeFD >= 0 { closeDescriptor(ends.writeFD) }
        }
    }
}
