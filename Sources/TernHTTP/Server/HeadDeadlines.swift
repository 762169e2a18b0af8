import CMicroHTTPD
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A deadline for each request's head. libmicrohttpd's connection timeout is an idle timeout: a
/// client that sends one byte of its head every few seconds is never idle and holds its connection
/// (and a slot under the connection cap) for ever. Here every connection waiting for a head, since
/// it opened or since its previous answer, gets `seconds` to deliver all of it; past that its socket
/// is shut down, and libmicrohttpd closes the connection as if the client had gone.
final class HeadDeadlines: Sendable {
    private struct Waiting {
        let socket: Int32
        /// When the connection began waiting for a head; nil while a request is being answered.
        var since: ContinuousClock.Instant?
    }

    private let seconds: Int
    private let connections = Mutex<[Int: Waiting]>([:])
    private let sweeping = Atomic<Bool>(false)

    /// `seconds` 0 turns the deadline off.
    init(seconds: Int) {
        self.seconds = seconds
    }

    /// Starts the sweep, once a second on a thread of its own, until `stop()`.
    func start() {
        guard seconds > 0, !sweeping.exchange(true, ordering: .relaxed) else { return }
        Thread.detachNewThread { [self] in
            while sweeping.load(ordering: .relaxed) {
                usleep(250_000)
                sweep()
            }
        }
    }

    func stop() {
        sweeping.store(false, ordering: .relaxed)
    }

    /// libmicrohttpd opened a connection: it waits for its first head from now.
    func opened(_ connection: OpaquePointer) {
        guard seconds > 0 else { return }
        let socket = tern_mhd_connection_fd(connection)
        guard socket >= 0 else { return }
        connections.withLock {
            $0[Int(bitPattern: UnsafeMutableRawPointer(connection))] = Waiting(socket: socket, since: .now)
        }
    }

    /// libmicrohttpd closed it (before closing its socket, so a sweep never touches a reused descriptor).
    func closed(_ connection: OpaquePointer) {
        guard seconds > 0 else { return }
        connections.withLock { _ = $0.removeValue(forKey: Int(bitPattern: UnsafeMutableRawPointer(connection))) }
    }

    /// A whole head arrived: no deadline while the request is read and answered.
    func headReceived(_ connection: OpaquePointer) {
        guard seconds > 0 else { return }
        connections.withLock { $0[Int(bitPattern: UnsafeMutableRawPointer(connection))]?.since = nil }
    }

    /// The answer went out: the next head is due within the deadline.
    func answered(_ connection: OpaquePointer) {
        guard seconds > 0 else { return }
        connections.withLock { $0[Int(bitPattern: UnsafeMutableRawPointer(connection))]?.since = .now }
    }

    private func sweep() {
        let limit = ContinuousClock.now - .seconds(seconds)
        connections.withLock { connections in
            for (key, waiting) in connections {
                guard let since = waiting.since, since < limit else { continue }
                // Under the lock: `closed` has not run, so the descriptor is still this connection's.
                _ = shutdown(waiting.socket, Int32(SHUT_RDWR))
                connections[key]?.since = nil
            }
        }
    }
}
