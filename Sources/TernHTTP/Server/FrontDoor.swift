import CMicroHTTPD
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Accepts connections in place of libmicrohttpd and holds each until its first head has arrived,
/// peeking at it (``HeadCheck``) without reading it: a head libmicrohttpd 0.9.75 would refuse with
/// its own HTML page (a `Content-Length` that is not a number or does not fit, a bad or huge first
/// chunk size, an unsupported HTTP version, an over-long request line) is answered here, worded by
/// the server's `errorResponse`, and closed; every other connection is handed to libmicrohttpd
/// (`MHD_add_connection`), which reads the same bytes. Later requests on a kept-alive connection
/// are libmicrohttpd's alone. One thread; a connection held here counts under the connection caps.
final class FrontDoor: Sendable {
    struct Limits: Sendable {
        let maxHeaderBytes: Int
        let maxBodyBytes: Int
        let headSeconds: Int
        let maxConnections: Int
        let maxPerAddress: Int
    }

    private let listening: Int32
    private let limits: Limits
    private let errorResponse: HTTPServer.ErrorResponse
    private let wake: (read: Int32, write: Int32)
    private let running = Atomic<Bool>(false)
    private let finished = Atomic<Bool>(true)

    init(listening: Int32, limits: Limits, errorResponse: @escaping HTTPServer.ErrorResponse) throws(HTTPServerError) {
        self.listening = listening
        self.limits = limits
        self.errorResponse = errorResponse
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else {
            throw HTTPServerError("cannot create a pipe: \(String(cString: strerror(errno)))")
        }
        for fd in fds {
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        }
        wake = (fds[0], fds[1])
        _ = fcntl(listening, F_SETFL, fcntl(listening, F_GETFL) | O_NONBLOCK)
    }

    deinit {
        close(wake.read)
        close(wake.write)
    }

    /// Starts accepting for `daemon` on a thread of its own.
    func start(daemon: DaemonHandle) {
        guard !running.exchange(true, ordering: .relaxed) else { return }
        finished.store(false, ordering: .relaxed)
        Thread.detachNewThread { [self] in
            loop(daemon)
            finished.store(true, ordering: .releasing)
        }
    }

    /// Stops accepting and closes the connections still held; returns once the thread is done.
    func stop() {
        guard running.exchange(false, ordering: .relaxed) else { return }
        var byte: UInt8 = 1
        _ = write(wake.write, &byte, 1)
        while !finished.load(ordering: .acquiring) { usleep(1_000) }
    }

    private struct Held {
        let socket: Int32
        var address: sockaddr_storage
        let length: socklen_t
        let host: String
        let since: ContinuousClock.Instant
        /// A head seen incomplete is peeked again only after this (its bytes stay readable, so
        /// polling it at once would spin).
        var quietUntil: ContinuousClock.Instant? = nil
    }

    private func loop(_ daemon: DaemonHandle) {
        var held: [Held] = []
        var buffer = [UInt8](repeating: 0, count: limits.maxHeaderBytes + 128)
        while running.load(ordering: .relaxed) {
            var polled = [pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0)]
            if held.count < limits.maxConnections {
                polled.append(pollfd(fd: listening, events: Int16(POLLIN), revents: 0))
            }
            let first = polled.count
            let now = ContinuousClock.now
            polled += held.map {
                let resting = $0.quietUntil.map { $0 > now } ?? false
                return pollfd(fd: resting ? -1 : $0.socket, events: Int16(POLLIN), revents: 0)
            }
            let timeout: Int32 = held.contains { $0.quietUntil != nil } ? 20 : 250
            guard poll(&polled, nfds_t(polled.count), timeout) >= 0 || errno == EINTR else { break }
            if polled[0].revents != 0 {
                var drain = [UInt8](repeating: 0, count: 64)
                _ = read(wake.read, &drain, drain.count)
                continue
            }
            var keep: [Held] = []
            let deadline = ContinuousClock.now - .seconds(limits.headSeconds)
            for (offset, var connection) in held.enumerated() {
                var events = polled[first + offset].revents
                if polled[first + offset].fd < 0 {
                    events = 0
                } else if let quiet = connection.quietUntil, quiet <= ContinuousClock.now, events == 0 {
                    events = Int16(POLLIN)  // rested: look again even if nothing new came
                }
                if events == 0 {
                    if limits.headSeconds > 0, connection.since < deadline {
                        close(connection.socket)
                    } else {
                        keep.append(connection)
                    }
                    continue
                }
                let count = recv(connection.socket, &buffer, buffer.count, Int32(MSG_PEEK))
                if count <= 0 {
                    if count < 0, errno == EAGAIN || errno == EINTR {
                        keep.append(connection)
                    } else {
                        close(connection.socket)
                    }
                    continue
                }
                switch HeadCheck.check(
                    Array(buffer[..<count]), maxHeaderBytes: limits.maxHeaderBytes, maxBodyBytes: limits.maxBodyBytes)
                {
                case .incomplete:
                    // A full peek buffer without a verdict cannot grow: let libmicrohttpd have it.
                    if count >= buffer.count {
                        hand(connection, to: daemon)
                    } else {
                        connection.quietUntil = ContinuousClock.now + .milliseconds(20)
                        keep.append(connection)
                    }
                case .pass:
                    hand(connection, to: daemon)
                case .refuse(let status, let reason):
                    refuse(connection.socket, errorResponse(status, reason))
                }
            }
            held = keep
            if first > 1, polled[1].revents != 0 { admit(into: &held) }
        }
        for connection in held { close(connection.socket) }
    }

    private func admit(into held: inout [Held]) {
        while held.count < limits.maxConnections {
            var address = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let socket = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { accept(listening, $0, &length) }
            }
            guard socket >= 0 else {
                // Out of descriptors: the listening socket stays readable; do not spin on it.
                if errno == EMFILE || errno == ENFILE { usleep(10_000) }
                return
            }
            _ = fcntl(socket, F_SETFD, FD_CLOEXEC)
            _ = fcntl(socket, F_SETFL, fcntl(socket, F_GETFL) | O_NONBLOCK)
            let host = Self.host(&address)
            if limits.maxPerAddress > 0, held.lazy.filter({ $0.host == host }).count >= limits.maxPerAddress {
                close(socket)
                continue
            }
            held.append(Held(socket: socket, address: address, length: length, host: host, since: .now))
        }
    }

    private func hand(_ connection: Held, to daemon: DaemonHandle) {
        var address = connection.address
        _ = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                // Closes the socket itself when it cannot take it (a cap reached).
                MHD_add_connection(daemon.pointer, connection.socket, $0, connection.length)
            }
        }
    }

    /// Answers and closes: what the client sent is read first, so the close sends no reset that
    /// could destroy the answer before the client reads it.
    private func refuse(_ socket: Int32, _ response: HTTPResponse) {
        var sink = [UInt8](repeating: 0, count: 16384)
        while recv(socket, &sink, sink.count, Int32(MSG_DONTWAIT)) > 0 {}
        let bytes = HeadDeadlines.wire(response, reason: Self.reasonPhrase(response.status))
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let sent = send(socket, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                if sent <= 0 { break }
                offset += sent
            }
        }
        _ = shutdown(socket, Int32(SHUT_WR))
        close(socket)
    }

    static func reasonPhrase(_ status: Int) -> String {
        switch status {
        case 400: "Bad Request"
        case 413: "Content Too Large"
        case 414: "URI Too Long"
        case 431: "Request Header Fields Too Large"
        case 505: "HTTP Version Not Supported"
        default: "Error"
        }
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
