import Foundation
import Synchronization

#if canImport(Glibc)
    import CEpoll
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One readiness event: the id the descriptor was registered with, and what it is ready for (a
/// hang-up or an error counts as both, so that the next read or write finds out which).
struct PollEvent {
    let id: UInt64
    let readable: Bool
    let writable: Bool
}

/// The small shim over the kernel's readiness API that the event loop needs: level-triggered
/// interest in reading and writing per descriptor, a wait with a timeout, and a wake-up from
/// another thread. epoll on Linux; poll(2) elsewhere (macOS), which rebuilds its descriptor list
/// on every wait and so suits a development machine, not a production server.
///
/// Every method may be called from any thread: a task that finishes a request changes its
/// connection's interest itself.
final class Poller: Sendable {
    /// The id of the wake-up pipe's events; callers' ids start above it.
    static let wakeID: UInt64 = 0
    private let wake: (read: Int32, write: Int32)

    #if os(Linux)
        private let epoll: Int32
        // <sys/epoll.h>'s values, spelled here because the C enum imports them as its own type.
        private static let readEvents: UInt32 = 0x001 | 0x008 | 0x010 | 0x2000  // IN, ERR, HUP, RDHUP
        private static let writeEvents: UInt32 = 0x004 | 0x008 | 0x010  // OUT, ERR, HUP
        private static let exclusive: UInt32 = 1 << 28
    #else
        private struct Interest {
            let id: UInt64
            var read: Bool
            var write: Bool
        }
        private let interests = Mutex<[Int32: Interest]>([:])
    #endif

    init() throws(HTTPServerError) {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else {
            throw HTTPServerError("cannot create a pipe: \(String(cString: strerror(errno)))")
        }
        for fd in fds {
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        }
        // Nothing is stored until every descriptor exists: an initializer that throws after its
        // properties are set still runs deinit, which would close the pipe a second time.
        #if os(Linux)
            let created = epoll_create1(0x80000)  // EPOLL_CLOEXEC
            guard created >= 0 else {
                let reason = String(cString: strerror(errno))
                close(fds[0])
                close(fds[1])
                throw HTTPServerError("cannot create an epoll instance: \(reason) (check ulimit -n)")
            }
            epoll = created
        #endif
        wake = (fds[0], fds[1])
        add(wake.read, id: Self.wakeID, read: true, write: false)
    }

    deinit {
        #if os(Linux)
            close(epoll)
        #endif
        close(wake.read)
        close(wake.write)
    }

    /// Watches `fd` under `id`. `exclusive`: of several pollers watching one descriptor (the
    /// listening socket), wake only one per event where the kernel can (EPOLLEXCLUSIVE).
    func add(_ fd: Int32, id: UInt64, read: Bool, write: Bool, exclusive: Bool = false) {
        #if os(Linux)
            // EPOLLEXCLUSIVE takes EPOLLIN and EPOLLOUT but not EPOLLRDHUP (EINVAL).
            let events =
                exclusive ? (read ? 0x001 : 0) | (write ? 0x004 : 0) | Self.exclusive : mask(read: read, write: write)
            control(1, fd, id: id, events: events)
        #else
            interests.withLock { $0[fd] = Interest(id: id, read: read, write: write) }
            signal()
        #endif
    }

    /// Changes what `fd` is watched for.
    func modify(_ fd: Int32, id: UInt64, read: Bool, write: Bool) {
        #if os(Linux)
            control(3, fd, id: id, events: mask(read: read, write: write))
        #else
            let grew = interests.withLock { interests -> Bool in
                let before = interests[fd]
                interests[fd] = Interest(id: id, read: read, write: write)
                return (read && before?.read != true) || (write && before?.write != true)
            }
            if grew { signal() }
        #endif
    }

    /// Stops watching `fd` (before it is closed).
    func remove(_ fd: Int32) {
        #if os(Linux)
            control(2, fd, id: 0, events: 0)
        #else
            interests.withLock { _ = $0.removeValue(forKey: fd) }
        #endif
    }

    /// Wakes a thread blocked in `wait`.
    func signal() {
        var byte: UInt8 = 1
        _ = write(wake.write, &byte, 1)
    }

    /// Blocks until a watched descriptor is ready, the poller is signalled, or `timeoutMilliseconds`
    /// pass; replaces `events` with what is ready (the wake-up pipe already drained).
    func wait(timeoutMilliseconds: Int32, into events: inout [PollEvent]) {
        events.removeAll(keepingCapacity: true)
        #if os(Linux)
            withUnsafeTemporaryAllocation(of: epoll_event.self, capacity: 256) { buffer in
                let count = epoll_wait(epoll, buffer.baseAddress, Int32(buffer.count), timeoutMilliseconds)
                guard count > 0 else { return }
                for index in 0..<Int(count) {
                    let event = buffer[index]
                    let id = event.data.u64
                    if id == Self.wakeID {
                        drain()
                        continue
                    }
                    events.append(
                        PollEvent(
                            id: id, readable: event.events & Self.readEvents != 0,
                            writable: event.events & Self.writeEvents != 0))
                }
            }
        #else
            let watched = interests.withLock { interests in
                interests.map { fd, interest in
                    let events = (interest.read ? Int16(POLLIN) : 0) | (interest.write ? Int16(POLLOUT) : 0)
                    return (interest.id, pollfd(fd: events == 0 ? -1 : fd, events: events, revents: 0))
                }
            }
            var fds = watched.map(\.1)
            guard poll(&fds, nfds_t(fds.count), timeoutMilliseconds) > 0 else { return }
            let failed = Int16(POLLERR) | Int16(POLLHUP) | Int16(POLLNVAL)
            for (index, polled) in fds.enumerated() where polled.revents != 0 {
                let id = watched[index].0
                if id == Self.wakeID {
                    drain()
                    continue
                }
                events.append(
                    PollEvent(
                        id: id, readable: polled.revents & (Int16(POLLIN) | failed) != 0,
                        writable: polled.revents & (Int16(POLLOUT) | failed) != 0))
            }
        #endif
    }

    private func drain() {
        var sink = [UInt8](repeating: 0, count: 64)
        while read(wake.read, &sink, sink.count) > 0 {}
    }

    #if os(Linux)
        private func mask(read: Bool, write: Bool) -> UInt32 {
            (read ? Self.readEvents : 0) | (write ? Self.writeEvents : 0)
        }

        private func control(_ operation: Int32, _ fd: Int32, id: UInt64, events: UInt32) {
            var event = epoll_event()
            event.events = events
            event.data.u64 = id
            _ = epoll_ctl(epoll, operation, fd, &event)
        }
    #endif
}
