import COpenSSL
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// OpenSSL's client context for a pool: the trust store, TLS 1.2 at least, ALPN `h2`. Shared by
/// the pool's connections (OpenSSL allows that once it is set up); freed with the pool.
final class TLSClientContext: @unchecked Sendable {
    let pointer: OpaquePointer

    init(caFile: String?) throws(HTTP2ClientError) {
        guard let context = SSL_CTX_new(TLS_client_method()) else {
            throw HTTP2ClientError(.tls, "OpenSSL could not make a TLS context: \(TLSStream.lastError())")
        }
        pointer = context
        _ = tern_ssl_ctx_set_min_proto_version(context, TLS1_2_VERSION)
        SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
        if let caFile {
            guard FileManager.default.isReadableFile(atPath: caFile) else {
                throw HTTP2ClientError(.tls, "the CA file \(caFile) does not exist or cannot be read")
            }
            guard SSL_CTX_load_verify_locations(context, caFile, nil) == 1 else {
                throw HTTP2ClientError(
                    .tls, "the CA file \(caFile) holds no usable PEM certificate: \(TLSStream.lastError())")
            }
        } else {
            SSL_CTX_set_default_verify_paths(context)
        }
        let alpn: [UInt8] = [2, UInt8(ascii: "h"), UInt8(ascii: "2")]
        _ = SSL_CTX_set_alpn_protos(context, alpn, UInt32(alpn.count))
        _ = tern_ssl_ctx_set_mode(context, Int(SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER))
        // Read as much as has arrived in one system call, not a record header and then its body.
        _ = tern_ssl_ctx_set_read_ahead(context, 1)
    }

    deinit {
        SSL_CTX_free(pointer)
    }
}

/// One TLS connection on a non-blocking socket: the SSL object and its descriptor, used by one
/// thread at a time (the thread that connects it, then the pool's loop, which it is handed to).
final class TLSStream: @unchecked Sendable {
    enum IO {
        case done(Int)
        case wantRead
        case wantWrite
        /// The peer ended the connection (close_notify or EOF).
        case closed
        case failed(String)
    }

    let fd: Int32
    private let ssl: OpaquePointer

    private init(fd: Int32, ssl: OpaquePointer) {
        self.fd = fd
        self.ssl = ssl
    }

    deinit {
        SSL_free(ssl)
        closeDescriptor(fd)
    }

    /// TCP, then TLS with the host's certificate checked and `h2` agreed, before `deadline`
    /// (monotonic nanoseconds).
    static func connect(
        to endpoint: PoolEndpoint, through proxy: HTTP2Proxy?, context: TLSClientContext, deadline: UInt64
    ) throws(HTTP2ClientError) -> TLSStream {
        let fd = try openSocket(
            host: proxy?.host ?? endpoint.host, port: proxy?.port ?? endpoint.port, deadline: deadline)
        if let proxy {
            do {
                try proxy.open(tunnelTo: endpoint.host, port: endpoint.port, on: fd, deadline: deadline)
            } catch {
                closeDescriptor(fd)
                throw error
            }
        }
        guard let ssl = SSL_new(context.pointer) else {
            closeDescriptor(fd)
            throw HTTP2ClientError(.tls, "OpenSSL could not make a TLS session: \(lastError())")
        }
        let stream = TLSStream(fd: fd, ssl: ssl)
        SSL_set_fd(ssl, fd)
        let place = "\(endpoint.host):\(endpoint.port)"
        if isIPAddress(endpoint.host) {
            X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), endpoint.host)
        } else {
            SSL_set1_host(ssl, endpoint.host)
            _ = tern_ssl_set_tlsext_host_name(ssl, endpoint.host)
        }
        while true {
            ERR_clear_error()
            let result = SSL_connect(ssl)
            if result == 1 { break }
            let error = SSL_get_error(ssl, result)
            let events: Int16
            switch error {
            case SSL_ERROR_WANT_READ: events = Int16(POLLIN)
            case SSL_ERROR_WANT_WRITE: events = Int16(POLLOUT)
            default:
                let verify = SSL_get_verify_result(ssl)
                if verify != X509_V_OK {
                    let why = String(cString: X509_verify_cert_error_string(verify))
                    throw HTTP2ClientError(.tls, "TLS with \(place): the server's certificate is not trusted: \(why)")
                }
                let why = error == SSL_ERROR_SYSCALL ? systemError(errno, fallback: "the peer closed") : lastError()
                throw HTTP2ClientError(.tls, "TLS handshake with \(place) failed: \(why)")
            }
            guard wait(fd, events: events, deadline: deadline) else {
                throw HTTP2ClientError(.connect, "TLS handshake with \(place) did not finish in time")
            }
        }
        var protocolName: UnsafePointer<UInt8>?
        var length: UInt32 = 0
        SSL_get0_alpn_selected(ssl, &protocolName, &length)
        let agreed = protocolName.map {
            String(decoding: UnsafeBufferPointer(start: $0, count: Int(length)), as: UTF8.self)
        }
        guard agreed == "h2" else {
            throw HTTP2ClientError(
                .transport, "\(place) did not agree to HTTP/2 in TLS (ALPN: \(agreed ?? "nothing")); APNs always does")
        }
        return stream
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) -> IO {
        Self.clearErrors()
        let count = SSL_read(ssl, buffer.baseAddress, Int32(clamping: buffer.count))
        return count > 0 ? .done(Int(count)) : failure(count)
    }

    func write(_ bytes: UnsafeRawBufferPointer) -> IO {
        Self.clearErrors()
        let count = SSL_write(ssl, bytes.baseAddress, Int32(clamping: bytes.count))
        return count > 0 ? .done(Int(count)) : failure(count)
    }

    /// Empties the thread's OpenSSL error queue, as `SSL_get_error` needs before each read and
    /// write. It is almost always empty already; `ERR_clear_error` wiped all of its slots every
    /// time (1 % of tern's CPU in a send), and a look at its top costs far less.
    private static func clearErrors() {
        if ERR_peek_error() != 0 { ERR_clear_error() }
    }

    private func failure(_ result: Int32) -> IO {
        switch SSL_get_error(ssl, result) {
        case SSL_ERROR_WANT_READ: return .wantRead
        case SSL_ERROR_WANT_WRITE: return .wantWrite
        case SSL_ERROR_ZERO_RETURN: return .closed
        case SSL_ERROR_SYSCALL:
            let code = errno
            return code == 0 || code == ECONNRESET ? .closed : .failed(Self.systemError(code, fallback: "I/O error"))
        default: return .failed(Self.lastError())
        }
    }

    /// The oldest OpenSSL error of this thread, in words.
    static func lastError() -> String {
        let code = ERR_get_error()
        guard code != 0 else { return "no detail from OpenSSL" }
        var buffer = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &buffer, buffer.count)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    static func systemError(_ code: Int32, fallback: String) -> String {
        code == 0 ? fallback : String(cString: strerror(code))
    }

    private static func isIPAddress(_ host: String) -> Bool {
        var v4 = in_addr()
        var v6 = in6_addr()
        return inet_pton(AF_INET, host, &v4) == 1 || inet_pton(AF_INET6, host, &v6) == 1
    }

    /// Polls one descriptor until `events` or the deadline; false on timeout.
    static func wait(_ fd: Int32, events: Int16, deadline: UInt64) -> Bool {
        while true {
            let now = DispatchTime.now().uptimeNanoseconds
            guard now < deadline else { return false }
            var entry = pollfd(fd: fd, events: events, revents: 0)
            let milliseconds = Int32(clamping: (deadline - now) / 1_000_000 + 1)
            let result = poll(&entry, 1, milliseconds)
            if result > 0 { return true }
            if result < 0, errno != EINTR { return true }
        }
    }

    private static func openSocket(host: String, port: Int, deadline: UInt64) throws(HTTP2ClientError) -> Int32 {
        let place = "\(host):\(port)"
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Glibc)
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
            hints.ai_socktype = SOCK_STREAM
        #endif
        var list: UnsafeMutablePointer<addrinfo>?
        let resolved = getaddrinfo(host, String(port), &hints, &list)
        guard resolved == 0, let first = list else {
            throw HTTP2ClientError(.connect, "cannot resolve \(host): \(String(cString: gai_strerror(resolved)))")
        }
        defer { freeaddrinfo(first) }
        var lastReason = "no address"
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let address = entry {
            entry = address.pointee.ai_next
            let fd = socket(address.pointee.ai_family, address.pointee.ai_socktype, address.pointee.ai_protocol)
            guard fd >= 0 else {
                lastReason = systemError(errno, fallback: "socket failed")
                continue
            }
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            var one: Int32 = 1
            _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            #if canImport(Darwin)
                _ = setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
            #endif
            if connectDescriptor(fd, address.pointee.ai_addr, address.pointee.ai_addrlen) == 0 { return fd }
            guard errno == EINPROGRESS else {
                lastReason = systemError(errno, fallback: "connect failed")
                closeDescriptor(fd)
                continue
            }
            guard wait(fd, events: Int16(POLLOUT), deadline: deadline) else {
                closeDescriptor(fd)
                throw HTTP2ClientError(.connect, "connecting to \(place) timed out")
            }
            var code: Int32 = 0
            var size = socklen_t(MemoryLayout<Int32>.size)
            _ = getsockopt(fd, SOL_SOCKET, SO_ERROR, &code, &size)
            if code == 0 { return fd }
            lastReason = systemError(code, fallback: "connect failed")
            closeDescriptor(fd)
        }
        throw HTTP2ClientError(.connect, "connecting to \(place) failed: \(lastReason)")
    }
}

/// `close(2)`, callable from types that have a `close` method of their own.
func closeDescriptor(_ fd: Int32) {
    _ = close(fd)
}

/// `connect(2)`, callable from `TLSStream.connect`.
private func connectDescriptor(_ fd: Int32, _ address: UnsafeMutablePointer<sockaddr>?, _ length: socklen_t) -> Int32 {
    connect(fd, address, length)
}
