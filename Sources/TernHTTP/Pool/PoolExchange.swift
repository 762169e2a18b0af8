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
    /// The request as nghttp2 takes it: its fields in one ``FieldBlock``, pseudo-headers first,
    /// then the request's shared fields (checked when they were made), then its own.
    struct Prepared: Sendable {
        var block = FieldBlock()
        let body: Data
        let method: String
        let path: String
        let origin: String

        init(_ request: borrowing HTTP2ConnectionPool.Request, endpoint: PoolEndpoint) throws(HTTP2ClientError) {
            body = request.body
            method = request.method
            path = request.path
            origin = endpoint.prefix
            guard !method.isEmpty, method.utf8.allSatisfy({ (65...90).contains($0) }) else {
                throw HTTP2ClientError(.invalidRequest, "\(origin)\(path): \"\(method)\" is not an HTTP method")
            }
            let shared = request.shared?.block
            var capacity = 64 + path.utf8.count + (shared?.bytes.count ?? 0)
            for (name, value) in request.headers { capacity += name.utf8.count + value.utf8.count }
            block.bytes.reserveCapacity(capacity)
            block.fields.reserveCapacity(5 + (shared?.fields.count ?? 0) + request.headers.count)
            block.append(":method", method)
            block.append(":scheme", "https")
            block.append(":authority", endpoint.authority)
            block.append(":path", path, unindexed: true)
            guard path.utf8.first == UInt8(ascii: "/"), block.isFieldValue(block.fields[3], allowSpace: false) else {
                throw HTTP2ClientError(
                    .invalidRequest, "\(origin)\(path): the path must start with / and have no spaces")
            }
            if let shared { block.append(shared) }
            for (name, value) in request.headers {
                if let refusal = block.appendChecked(name, value) {
                    throw HTTP2ClientError(.invalidRequest, "\(origin)\(path): \(refusal.reason(name))")
                }
            }
            if !body.isEmpty || method == "POST" || method == "PUT" {
                block.append("content-length", String(body.count), unindexed: true)
            }
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

    /// An exchange for `request`, its ``Prepared`` made as the argument: made apart and handed over,
    /// it was copied, retaining and releasing its buffers and strings for every request of a batch.
    /// - Throws: `HTTP2ClientError` `.invalidRequest` as ``Prepared/init(_:endpoint:)``.
    convenience init(
        id: UInt64, request: borrowing HTTP2ConnectionPool.Request, endpoint: PoolEndpoint, timeout: TimeInterval,
        complete: @escaping @Sendable (Result<HTTP2Response, any Error>) -> Void
    ) throws(HTTP2ClientError) {
        self.init(id: id, prepared: try Prepared(request, endpoint: endpoint), timeout: timeout, complete: complete)
    }

    func timedOut() -> HTTP2ClientError {
        HTTP2ClientError(.timeout, "\(prepared.summary) timed out after \(Int((timeout * 1000).rounded())) ms")
    }
}
