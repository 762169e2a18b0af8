import COpenSSL
import Foundation
import Synchronization

/// HTTP/2 over TLS to one origin, straight on libnghttp2 and OpenSSL, for senders that push many
/// small requests: one event-loop thread serves all the pool's connections, turning every request
/// waiting into frames and writing them together, so a thousand requests cost a handful of TLS
/// records and system calls rather than several each. Requests wait in one queue; every connection takes as
/// many as it has free streams (the smaller of `maxStreamsPerConnection` and the peer's
/// SETTINGS), and a further connection opens only when the open ones have no free stream left.
///
/// ```swift
/// let pool = try HTTP2ConnectionPool(
///     origin: URL(string: "https://api.push.apple.com")!, configuration: .init(maxConnections: 4))
/// let answers = await pool.send(requests)          // one Result per request, in order
/// let one = try await pool.send(request)           // or one at a time
/// ```
///
/// A request the peer never processed (refused by GOAWAY or `REFUSED_STREAM`, or still unsent
/// when its connection closed) goes out again on another connection; one that may have been
/// processed fails with `.transport`. Behind an egress proxy the connections tunnel through it
/// with CONNECT (`HTTP2Proxy`; by default `https_proxy`/`no_proxy`, as libcurl reads them).
/// `HTTP2Client` (libcurl) remains the general client: it speaks HTTP/1.1 too; this pool speaks
/// only HTTP/2 over TLS, which is what APNs takes.
public final class HTTP2ConnectionPool: Sendable {
    public struct Configuration: Sendable {
        /// A PEM file of certificate authorities to trust instead of the system's (e.g. a test CA).
        public var caFile: String?
        /// Connections at most; the next opens only when the streams of those open run out.
        public var maxConnections: Int
        /// Streams in flight per connection at most (a lower SETTINGS value from the peer wins).
        public var maxStreamsPerConnection: Int
        /// Seconds to set up a connection (TCP and TLS).
        public var connectTimeout: TimeInterval = 10
        /// Seconds for a whole exchange, waiting in the queue included, unless the request says
        /// otherwise.
        public var requestTimeout: TimeInterval = 30
        /// Larger answers fail with `.responseTooLarge`.
        public var maxResponseBytes: Int = 16 << 20
        /// An HTTP proxy to tunnel through; nil: the environment's (`HTTP2Proxy.fromEnvironment`)
        /// unless `proxyFromEnvironment` is off.
        public var proxy: HTTP2Proxy?
        /// Take `https_proxy` / `no_proxy` from the environment when `proxy` is nil.
        public var proxyFromEnvironment = true

        public init(caFile: String? = nil, maxConnections: Int = 8, maxStreamsPerConnection: Int = 1000) {
            self.caFile = caFile
            self.maxConnections = maxConnections
            self.maxStreamsPerConnection = maxStreamsPerConnection
        }
    }

    /// One request to the pool's origin: the path instead of a whole URL, so that making many
    /// costs no URL parsing.
    public struct Request: Sendable {
        /// `"GET"`, `"POST"`, ...
        public var method: String
        /// The path and query, percent-encoded: `/3/device/4f0c…`.
        public var path: String
        /// Fields many requests send alike, checked once; sent before `headers`.
        public var shared: SharedHeaders?
        /// Header fields in order; names are sent lowercased.
        public var headers: [(String, String)]
        public var body: Data
        /// Seconds for the whole exchange, waiting in the queue included; nil: the pool's
        /// `requestTimeout`.
        public var timeout: TimeInterval?

        public init(
            method: String = "GET", path: String, shared: SharedHeaders? = nil, headers: [(String, String)] = [],
            body: Data = Data(), timeout: TimeInterval? = nil
        ) {
            self.method = method
            self.path = path
            self.shared = shared
            self.headers = headers
            self.body = body
            self.timeout = timeout
        }
    }

    /// Header fields that many requests send alike, checked and laid out once: each request that
    /// names them copies their bytes instead of checking each field again. Of a push's eight
    /// fields, six are the same for its whole batch (the provider's authorization and topic, the
    /// message's push type, priority and content type), and checking them again for every push
    /// was a tenth of the sender's CPU.
    ///
    /// ```swift
    /// let shared = try HTTP2ConnectionPool.SharedHeaders([("authorization", "bearer …"), ("apns-topic", "com.example.app")])
    /// let request = HTTP2ConnectionPool.Request(method: "POST", path: "/3/device/…", shared: shared, headers: [("apns-id", id)])
    /// ```
    public struct SharedHeaders: Sendable {
        let block: FieldBlock

        /// Checks the fields as a request's own would be: a name that is not a token, or a value
        /// with a line break or NUL, throws `.invalidRequest`; connection-specific fields
        /// (`connection`, `content-length`, …) are left out.
        public init(_ headers: [(String, String)]) throws(HTTP2ClientError) {
            var block = FieldBlock()
            for (name, value) in headers {
                if let refusal = block.appendChecked(name, value) {
                    throw HTTP2ClientError(.invalidRequest, refusal.reason(name))
                }
            }
            self.block = block
        }

        /// The fields as they are sent: names in lower case, connection-specific ones left out.
        public var fields: [(name: String, value: String)] {
            block.fields.map { field in
                (
                    String(decoding: block.bytes[field.nameStart..<(field.nameStart + field.nameCount)], as: UTF8.self),
                    String(
                        decoding: block.bytes[field.valueStart..<(field.valueStart + field.valueCount)], as: UTF8.self)
                )
            }
        }
    }

    /// `https://host[:port]`: every request's URL must have this scheme, host and port.
    public let origin: URL
    public let configuration: Configuration
    let shared: PoolShared
    private let nextID = Atomic<UInt64>(0)

    /// Loads the trust store and checks the origin; no connection opens before the first request.
    /// - Throws: `HTTP2ClientError` (`.invalidRequest` for an origin that is not `https://host`,
    ///   `.tls` for a CA file that cannot be loaded).
    public init(origin: URL, configuration: Configuration = Configuration()) throws {
        guard configuration.maxConnections >= 1, configuration.maxStreamsPerConnection >= 1 else {
            throw HTTP2ClientError(.invalidRequest, "maxConnections and maxStreamsPerConnection must be at least 1")
        }
        _ = ignoreBrokenPipe
        let endpoint = try PoolEndpoint(origin: origin)
        let proxy =
            try configuration.proxy
            ?? (configuration.proxyFromEnvironment ? HTTP2Proxy.fromEnvironment(for: endpoint.host) : nil)
        let tls = try TLSClientContext(caFile: configuration.caFile)
        self.origin = origin
        self.configuration = configuration
        shared = PoolShared(endpoint: endpoint, proxy: proxy, tls: tls, configuration: configuration)
    }

    deinit {
        shared.shutDown()
    }

    /// Closes the pool: requests waiting fail with `.shutDown`, streams in flight too, and the
    /// pool's threads have ended when this returns (it waits up to 2 s for them). Later
    /// requests fail with `.shutDown`. Releasing the pool does the same.
    public func close() {
        shared.shutDown()
    }

    /// Connections open or opening.
    public var connectionCount: Int { shared.connectionCount }

    /// The proxy the connections tunnel through, if any.
    public var proxy: HTTP2Proxy? { shared.proxy }

    /// Sends one request and waits for its answer (any status is an answer).
    /// - Throws: `HTTP2ClientError` when no answer came, or `CancellationError` when the calling
    ///   task was cancelled (a request in flight is reset).
    public func send(_ request: Request) async throws -> HTTP2Response {
        let id = nextID.wrappingAdd(1, ordering: .relaxed).newValue
        let shared = shared
        let prepared = try PoolExchange.Prepared(request, endpoint: shared.endpoint)
        return try await withTaskCancellationHandler {
            try Task.checkCancellation()
            return try await withCheckedThrowingContinuation { continuation in
                let exchange = PoolExchange(
                    id: id, prepared: prepared, timeout: request.timeout ?? configuration.requestTimeout
                ) { result in
                    continuation.resume(with: result)
                }
                shared.enqueue([exchange])
            }
        } onCancel: {
            shared.cancel(id)
        }
    }

    /// `send(_:)` for a request given with its whole URL, which must be on the pool's origin.
    public func send(_ request: HTTP2Request) async throws -> HTTP2Response {
        try await send(try Request(request, endpoint: shared.endpoint))
    }

    /// Sends every request, as many at once as the connections take, and waits for all; one
    /// result per request, in order. A request that cannot be made (a header with a line break,
    /// a path without its leading /) fails alone with `.invalidRequest`.
    public func send(_ requests: [Request]) async -> [Result<HTTP2Response, HTTP2ClientError>] {
        guard !requests.isEmpty else { return [] }
        let collector = BatchCollector(count: requests.count)
        let first = nextID.wrappingAdd(UInt64(requests.count), ordering: .relaxed).newValue - UInt64(requests.count)
        var exchanges: [PoolExchange] = []
        exchanges.reserveCapacity(requests.count)
        // By index, not `enumerated()`: the iterator hands out copies, each retaining and releasing
        // the request's headers, strings and body (4 % of a send's reference counting).
        for index in requests.indices {
            do {
                exchanges.append(
                    try PoolExchange(
                        id: first + UInt64(index) + 1, request: requests[index], endpoint: shared.endpoint,
                        timeout: requests[index].timeout ?? configuration.requestTimeout
                    ) { result in
                        collector.record(index, result)
                    })
            } catch {
                collector.record(index, .failure(error))
            }
        }
        return await withCheckedContinuation { continuation in
            collector.onComplete(continuation)
            shared.enqueue(exchanges)
        }
    }
}

extension HTTP2ConnectionPool.Request {
    init(_ request: HTTP2Request, endpoint: PoolEndpoint) throws(HTTP2ClientError) {
        self.init(
            method: request.method, path: try endpoint.path(of: request.url), headers: request.headers,
            body: request.body, timeout: request.timeout)
    }
}

/// A write to a connection the peer closed must fail with EPIPE, not end the process: OpenSSL
/// writes to the socket with plain `write`. And OpenSSL's exit handler must not free what a
/// connection thread may still use while the process ends (it only takes effect when this is the
/// process's first use of OpenSSL).
private let ignoreBrokenPipe: Bool = {
    signal(SIGPIPE, SIG_IGN)
    OPENSSL_init_ssl(UInt64(OPENSSL_INIT_NO_ATEXIT), nil)
    return true
}()

/// Gathers a batch's results from the pool's loop; resumes the caller once all are in.
final class BatchCollector: Sendable {
    private struct State {
        var results: [Result<HTTP2Response, HTTP2ClientError>?]
        var left: Int
        var continuation: CheckedContinuation<[Result<HTTP2Response, HTTP2ClientError>], Never>?
    }

    private let state: Mutex<State>

    init(count: Int) {
        state = Mutex(State(results: Array(repeating: nil, count: count), left: count))
    }

    func record(_ index: Int, _ result: Result<HTTP2Response, any Error>) {
        let mapped = result.mapError { error in
            error as? HTTP2ClientError ?? HTTP2ClientError(.transport, "\(error)")
        }
        let done = state.withLock { state -> CheckedContinuation<[Result<HTTP2Response, HTTP2ClientError>], Never>? in
            if case .some = state.results[index] { return nil }
            state.results[index] = mapped
            state.left -= 1
            guard state.left == 0 else { return nil }
            defer { state.continuation = nil }
            return state.continuation
        }
        done?.resume(returning: finished())
    }

    func onComplete(_ continuation: CheckedContinuation<[Result<HTTP2Response, HTTP2ClientError>], Never>) {
        let ready = state.withLock { state -> Bool in
            guard state.left > 0 else { return true }
            state.continuation = continuation
            return false
        }
        if ready { continuation.resume(returning: finished()) }
    }

    private func finished() -> [Result<HTTP2Response, HTTP2ClientError>] {
        state.withLock { state in state.results.map { $0! } }
    }
}
