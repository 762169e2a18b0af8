import CMicroHTTPD
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A deadline for each request's head, and one for its body. libmicrohttpd's connection timeout is
/// an idle timeout: a client that sends one byte every few seconds is never idle and holds its
/// connection (and a slot under the connection cap) for ever. Here every connection waiting for a
/// head, since it opened or since its previous answer, gets `seconds` to deliver all of it; past
/// that its socket is shut down, and libmicrohttpd closes the connection as if the client had gone.
/// Once the head is in, the body gets `bodySeconds`; past that the client is told so (the
/// `bodyTimeout` answer, written while libmicrohttpd is only reading) and the socket shut down.
final class HeadDeadlines: Sendable {
    private struct Waiting {
        let socket: Int32
        /// When the connection began waiting for a head or a body; nil while a request is answered.
        var since: ContinuousClock.Instant?
        /// True while the body is awaited (the head is in).
        var body = false
    }

    private let seconds: Int
    private let bodySeconds: Int
    /// The whole answer (status line, headers, body) sent to a client whose body is late.
    private let bodyTimeout: [UInt8]
    private let connections = Mutex<[Int: Waiting]>([:])
    private let sweeping = Atomic<Bool>(false)

    /// `seconds` (the head's) or `bodySeconds` 0 turns that deadline off.
    init(seconds: Int, bodySeconds: Int = 0, bodyTimeout: [UInt8] = []) {
        self.seconds = seconds
        self.bodySeconds = bodySeconds
        self.bodyTimeout = bodyTimeout
    }

    private var tracking: Bool { seconds > 0 || bodySeconds > 0 }

    /// Starts the sweep, four times a second on a thread of its own, until `stop()`.
    func start() {
        guard tracking, !sweeping.exchange(true, ordering: .relaxed) else { return }
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
        guard tracking else { return }
        let socket = tern_mhd_connection_fd(connection)
        guard socket >= 0 else { return }
        connections.withLock {
            $0[Int(bitPattern: UnsafeMutableRawPointer(connection))] = Waiting(socket: socket, since: .now)
        }
    }

    /// libmicrohttpd closed it (before closing its socket, so a sweep never touches a reused descriptor).
    func closed(_ connection: OpaquePointer) {
        guard tracking else { return }
        connections.withLock { _ = $0.removeValue(forKey: Int(bitPattern: UnsafeMutableRawPointer(connection))) }
    }

    /// A whole head arrived: its body is due within the body deadline (none when there is none).
    func headReceived(_ connection: OpaquePointer) {
        guard tracking else { return }
        let bodySeconds = bodySeconds
        connections.withLock {
            let key = Int(bitPattern: UnsafeMutableRawPointer(connection))
            $0[key]?.since = bodySeconds > 0 ? .now : nil
            $0[key]?.body = true
        }
    }

    /// The whole body arrived (or none was expected): no deadline while the request is answered.
    func bodyReceived(_ connection: OpaquePointer) {
        guard tracking else { return }
        connections.withLock { $0[Int(bitPattern: UnsafeMutableRawPointer(connection))]?.since = nil }
    }

    /// The answer went out: the next head is due within the deadline.
    func answered(_ connection: OpaquePointer) {
        guard tracking else { return }
        let seconds = seconds
        connections.withLock {
            let key = Int(bitPattern: UnsafeMutableRawPointer(connection))
            $0[key]?.since = seconds > 0 ? .now : nil
            $0[key]?.body = false
        }
    }

    private func sweep() {
        let now = ContinuousClock.now
        let headLimit = now - .seconds(seconds)
        let bodyLimit = now - .seconds(bodySeconds)
        connections.withLock { connections in
            for (key, waiting) in connections {
                guard let since = waiting.since, since < (waiting.body ? bodyLimit : headLimit) else { continue }
                // Under the lock: `closed` has not run, so the descriptor is still this connection's.
                // While a body is awaited libmicrohttpd writes nothing: the answer goes out whole.
                if waiting.body, !bodyTimeout.isEmpty { Self.sendAll(bodyTimeout, to: waiting.socket) }
                _ = shutdown(waiting.socket, Int32(SHUT_RDWR))
                connections[key]?.since = nil
            }
        }
    }

    /// Best effort, without blocking: a client too slow to read its 408 just does not get it.
    private static func sendAll(_ bytes: [UInt8], to socket: Int32) {
        bytes.withUnsafeBytes { buffer in
            #if canImport(Glibc)
                _ = send(socket, buffer.baseAddress, buffer.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
            #else
                _ = send(socket, buffer.baseAddress, buffer.count, MSG_DONTWAIT)
            #endif
        }
    }

    /// `response` as the bytes of an HTTP/1.1 answer that closes the connection.
    static func wire(_ response: HTTPResponse, reason: String) -> [UInt8] {
        var head = "HTTP/1.1 \(response.status) \(reason)\r\nDate: \(httpDate())\r\n"
        for (name, value) in response.headers where !["content-length", "connection"].contains(name.lowercased()) {
            head += "\(name): \(value)\r\n"
        }
        head += "Content-Length: \(response.body.count)\r\nConnection: close\r\n\r\n"
        return Array(head.utf8) + Array(response.body)
    }

    /// Now as an IMF-fixdate (`Tue, 01 Dec 2026 08:50:16 GMT`), as every answer carries.
    static func httpDate() -> String {
        var now = time(nil)
        var parts = tm()
        gmtime_r(&now, &parts)
        var text = [CChar](repeating: 0, count: 40)
        _ = strftime(&text, text.count, "%a, %d %b %Y %H:%M:%S GMT", &parts)
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
