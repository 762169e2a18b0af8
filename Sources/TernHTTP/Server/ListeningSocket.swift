import Foundation

#if canImport(Glibc)
    import Glibc
    private let streamSocket = Int32(SOCK_STREAM.rawValue)
#elseif canImport(Darwin)
    import Darwin
    private let streamSocket = SOCK_STREAM
#endif

/// An IPv4 TCP socket bound and listening, non-blocking (the event loops accept from it until
/// it has nothing more), created when the server is, so that a bind failure has a reason (errno)
/// and port 0 learns its port.
struct ListeningSocket: Sendable {
    let descriptor: Int32
    let port: Int

    init(host: String, port: Int, backlog: Int32 = 1024) throws(HTTPServerError) {
        guard (0...65535).contains(port) else {
            throw HTTPServerError("port \(port) is outside 0...65535")
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        let literal = host == "localhost" ? "127.0.0.1" : host
        guard inet_pton(AF_INET, literal, &address.sin_addr) == 1 else {
            throw HTTPServerError("host \"\(host)\" is not an IPv4 address (use e.g. 127.0.0.1 or 0.0.0.0)")
        }
        let fd = socket(AF_INET, streamSocket, 0)
        guard fd >= 0 else {
            throw HTTPServerError("cannot create a socket: \(String(cString: strerror(errno)))")
        }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        var one: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        if bound != 0 {
            let code = errno
            close(fd)
            throw HTTPServerError(Self.bindFailure(code, host: host, port: port))
        }
        guard listen(fd, backlog) == 0 else {
            let message = String(cString: strerror(errno))
            close(fd)
            throw HTTPServerError("cannot listen on \(host):\(port): \(message)")
        }
        var actual = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        self.descriptor = fd
        self.port = Int(UInt16(bigEndian: actual.sin_port))
    }

    /// Closes the socket, once the event loops no longer watch it.
    func release() {
        close(descriptor)
    }

    private static func bindFailure(_ code: Int32, host: String, port: Int) -> String {
        switch code {
        case EADDRINUSE:
            return "port \(port) on \(host) is in use by another process (pick another with --port, or 0 for any)"
        case EACCES:
            return "permission denied binding \(host):\(port) (ports below 1024 need privileges)"
        case EADDRNOTAVAIL:
            return "address \(host) is not an address of this machine"
        default:
            return "cannot bind \(host):\(port): \(String(cString: strerror(code)))"
        }
    }
}
