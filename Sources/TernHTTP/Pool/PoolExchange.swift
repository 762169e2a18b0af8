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
final class PoolExchange: Sendable {
    /// The request as nghttp2 takes it: names and values back to back in one buffer, checked
    /// and lowercased there, without a string made per field.
    struct Prepared: Sendable {
        /// Where one field lies in `bytes`, and nghttp2's flags for it.
        struct Field: Sendable {
            let nameStart: Int
            let nameCount: Int
            let valueStart: Int
            let valueCount: Int
            let unindexed: Bool
        }

        var bytes: [UInt8] = []
        /// Pseudo-headers first.
        var fields: [Field] = []
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
            var capacity = 64 + path.utf8.count
            for (name, value) in request.headers { capacity += name.utf8.count + value.utf8.count }
            bytes.reserveCapacity(capacity)
            fields.reserveCapacity(5 + request.headers.count)
            append(":method", method)
            append(":scheme", "https")
            append(":authority", endpoint.authority)
            append(":path", path, unindexed: true)
            guard path.utf8.first == UInt8(ascii: "/"), isFieldValue(fields[3], allowSpace: false) else {
                throw HTTP2ClientError(
                    .invalidRequest, "\(origin)\(path): the path must start with / and have no spaces")
            }
            for (name, value) in request.headers {
                append(name, value)
                let field = fields[fields.count - 1]
                guard lowercaseToken(field) else {
                    throw HTTP2ClientError(.invalidRequest, "\(origin)\(path): header name \"\(name)\" is not valid")
                }
                guard isFieldValue(field, allowSpace: true) else {
                    throw HTTP2ClientError(
                        .invalidRequest, "\(origin)\(path): header \(name) has a line break or NUL in its value")
                }
                if isConnectionSpecific(field) {
                    fields.removeLast()
                    bytes.removeLast(bytes.count - field.nameStart)
                } else if Self.unindexedNames.contains(where: { matches(field, $0) }) {
                    fields[fields.count - 1] = Field(
                        nameStart: field.nameStart, nameCount: field.nameCount, valueStart: field.valueStart,
                        valueCount: field.valueCount, unindexed: true)
                }
            }
            if !body.isEmpty || method == "POST" || method == "PUT" {
                append("content-length", String(body.count), unindexed: true)
            }
        }

        /// Fields whose values differ on every request: kept out of HPACK's dynamic table, where
        /// they would only push out the fields that repeat (the authorization, the topic).
        private static let unindexedNames: [[UInt8]] = ["apns-id", "apns-expiration", "apns-collapse-id"].map {
            Array($0.utf8)
        }

        /// Connection-specific fields are not allowed in HTTP/2 (RFC 9113 8.2.2); the pool sets
        /// content-length itself.
        private static let droppedNames: [[UInt8]] = [
            "connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade", "host", "content-length",
        ].map { Array($0.utf8) }

        private mutating func append(_ name: String, _ value: String, unindexed: Bool = false) {
            var name = name
            var value = value
            let nameStart = bytes.count
            name.withUTF8 { bytes.append(contentsOf: $0) }
            let valueStart = bytes.count
            value.withUTF8 { bytes.append(contentsOf: $0) }
            fields.append(
                Field(
                    nameStart: nameStart, nameCount: valueStart - nameStart, valueStart: valueStart,
                    valueCount: bytes.count - valueStart, unindexed: unindexed))
        }

        /// RFC 9110 token characters; upper case is allowed here and sent in lower case.
        private static let tokenBytes: [Bool] = (0..<256).map { byte in
            (97...122).contains(byte) || (65...90).contains(byte) || (48...57).contains(byte)
                || "!#$%&'*+-.^_`|~".utf8.contains(UInt8(byte))
        }

        /// Checks the name is a token and lowercases it in place.
        private mutating func lowercaseToken(_ field: Field) -> Bool {
            guard field.nameCount > 0 else { return false }
            return bytes.withUnsafeMutableBufferPointer { bytes in
                for index in field.nameStart..<(field.nameStart + field.nameCount) {
                    let byte = bytes[index]
                    guard Self.tokenBytes[Int(byte)] else { return false }
                    if byte >= 65, byte <= 90 { bytes[index] = byte + 32 }
                }
                return true
            }
        }

        private func isFieldValue(_ field: Field, allowSpace: Bool) -> Bool {
            bytes.withUnsafeBufferPointer { bytes in
                for index in field.valueStart..<(field.valueStart + field.valueCount) {
                    let byte = bytes[index]
                    if byte == 0 || byte == 10 || byte == 13 || (!allowSpace && byte == 32) { return false }
                }
                return true
            }
        }

        private func matches(_ field: Field, _ name: [UInt8]) -> Bool {
            field.nameCount == name.count
                && bytes.withUnsafeBufferPointer { bytes in
                    name.withUnsafeBufferPointer { name in
                        memcmp(bytes.baseAddress! + field.nameStart, name.baseAddress!, name.count) == 0
                    }
                }
        }

        private func isConnectionSpecific(_ field: Field) -> Bool {
            Self.droppedNames.contains { matches(field, $0) }
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
