import Foundation

/// The origin a pool talks to: host and port to connect to, and the `:authority` to send.
struct PoolEndpoint: Sendable {
    let host: String
    let port: Int
    let authority: String
    /// `https://host:port`, to tell a request's URL belongs here without parsing it again.
    let prefix: String

    init(origin: URL) throws(HTTP2ClientError) {
        guard origin.scheme?.lowercased() == "https", let host = origin.host, !host.isEmpty else {
            throw HTTP2ClientError(.invalidRequest, "\(origin.absoluteString): the pool takes an https://host origin")
        }
        self.host = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
        port = origin.port ?? 443
        let bracketed = self.host.contains(":") ? "[\(self.host)]" : self.host
        authority = origin.port == nil ? bracketed : "\(bracketed):\(port)"
        prefix = "https://\(bracketed.lowercased()):\(port)"
    }

    /// The path and query of `url`, percent-encoded as given, when `url` is on this origin.
    func path(of url: URL) throws(HTTP2ClientError) -> String {
        let text = url.absoluteString
        let rest: Substring
        if text.hasPrefix(prefix) {
            rest = text.dropFirst(prefix.count)
        } else if port == 443, text.hasPrefix("https://\(authority)") {
            rest = text.dropFirst("https://\(authority)".count)
        } else {
            let asked = "\(url.scheme ?? "?")://\(url.host ?? "?"):\(url.port ?? (url.scheme == "https" ? 443 : 80))"
            throw HTTP2ClientError(.invalidRequest, "\(text): not on this pool's origin \(prefix) (asked for \(asked))")
        }
        let path = rest.prefix { $0 != "#" }
        if path.isEmpty { return "/" }
        guard path.first == "/" || path.first == "?" else {
            throw HTTP2ClientError(.invalidRequest, "\(text): not on this pool's origin \(prefix)")
        }
        return path.first == "?" ? "/" + path : String(path)
    }
}

/// One request on its way through a pool: its header block made once, its deadline, and what to
/// call with the answer (on a connection's thread; it must return quickly).
struct PoolExchange: Sendable {
    /// The request as nghttp2 takes it: names and values back to back in one buffer.
    struct Prepared: Sendable {
        var bytes: [UInt8] = []
        /// (name start, name length, value start, value length) in `bytes`, pseudo-headers first.
        var fields: [(Int, Int, Int, Int)] = []
        let body: Data
        let method: String
        let path: String
        let origin: String

        init(_ request: HTTP2ConnectionPool.Request, endpoint: PoolEndpoint) throws(HTTP2ClientError) {
            body = request.body
            method = request.method
            path = request.path
            origin = endpoint.prefix
            guard !method.isEmpty, method.utf8.allSatisfy({ (65...90).contains($0) }) else {
                throw HTTP2ClientError(.invalidRequest, "\(origin)\(path): \"\(method)\" is not an HTTP method")
            }
            guard path.utf8.first == UInt8(ascii: "/"), Self.isFieldValue(path), !path.utf8.contains(32) else {
                throw HTTP2ClientError(
                    .invalidRequest, "\(origin)\(path): the path must start with / and have no spaces")
            }
            bytes.reserveCapacity(
                64 + path.utf8.count + request.headers.reduce(0) { $0 + $1.0.utf8.count + $1.1.utf8.count })
            fields.reserveCapacity(5 + request.headers.count)
            append(":method", method)
            append(":scheme", "https")
            append(":authority", endpoint.authority)
            append(":path", path)
            for (name, value) in request.headers {
                switch Self.check(name) {
                case .valid: break
                case .uppercase:
                    try add(name.lowercased(), value)
                    continue
                case .invalid:
                    throw HTTP2ClientError(.invalidRequest, "\(origin)\(path): header name \"\(name)\" is not valid")
                }
                try add(name, value)
            }
            if !body.isEmpty || method == "POST" || method == "PUT" {
                append("content-length", String(body.count))
            }
        }

        private mutating func add(_ name: String, _ value: String) throws(HTTP2ClientError) {
            guard Self.isFieldValue(value) else {
                throw HTTP2ClientError(
                    .invalidRequest, "\(origin)\(path): header \(name) has a line break or NUL in its value")
            }
            // Connection-specific fields are not allowed in HTTP/2 (RFC 9113 8.2.2).
            switch name {
            case "connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade", "host",
                "content-length":
                return
            default: append(name, value)
            }
        }

        private mutating func append(_ name: String, _ value: String) {
            let nameStart = bytes.count
            bytes.append(contentsOf: name.utf8)
            let valueStart = bytes.count
            bytes.append(contentsOf: value.utf8)
            fields.append((nameStart, valueStart - nameStart, valueStart, bytes.count - valueStart))
        }

        private enum NameCheck { case valid, uppercase, invalid }

        /// RFC 9110 token characters; upper case is allowed here and sent in lower case.
        private static let tokenBytes: [Bool] = (0..<256).map { byte in
            (97...122).contains(byte) || (65...90).contains(byte) || (48...57).contains(byte)
                || "!#$%&'*+-.^_`|~".utf8.contains(UInt8(byte))
        }

        private static func check(_ name: String) -> NameCheck {
            var uppercase = false
            var count = 0
            for byte in name.utf8 {
                guard tokenBytes[Int(byte)] else { return .invalid }
                if byte >= 65, byte <= 90 { uppercase = true }
                count += 1
            }
            return count == 0 ? .invalid : uppercase ? .uppercase : .valid
        }

        private static func isFieldValue(_ value: String) -> Bool {
            !value.utf8.contains { $0 == 0 || $0 == 10 || $0 == 13 }
        }

        /// `POST https://host:port/path`, for reasons.
        var summary: String { "\(method) \(origin)\(path)" }
    }

    let id: UInt64
    let prepared: Prepared
    /// Monotonic nanoseconds (`DispatchTime.uptimeNanoseconds`) after which the exchange fails.
    let deadline: UInt64
    let timeout: TimeInterval
    let complete: @Sendable (Result<HTTP2Response, any Error>) -> Void

    init(
        id: UInt64, prepared: Prepared, timeout: TimeInterval,
        complete: @escaping @Sendable (Result<HTTP2Response, any Error>) -> Void
    ) {
        self.id = id
        self.prepared = prepared
        self.timeout = timeout
        let nanoseconds = max(0, min(timeout, 86_400 * 365)) * 1e9
        deadline = DispatchTime.now().uptimeNanoseconds &+ UInt64(nanoseconds)
        self.complete = complete
    }

    func timedOut() -> HTTP2ClientError {
        HTTP2ClientError(.timeout, "\(prepared.summary) timed out after \(Int((timeout * 1000).rounded())) ms")
    }
}
