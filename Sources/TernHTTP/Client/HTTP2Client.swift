import CCurl
import Foundation
import Synchronization

/// Calls libcurl's process-wide set-up once, before the first handle.
private let curlGlobalSetUp: Bool = curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK

/// An HTTP/2 client over libcurl's multi interface: requests to one origin share one connection
/// as concurrent streams (`CURLPIPE_MULTIPLEX`), on one thread of the client's own.
///
/// ```swift
/// let client = try HTTP2Client(configuration: .init(caFile: "/etc/tern/test-ca.pem"))
/// let response = try await client.send(HTTP2Request(method: "POST", url: url, body: payload, timeout: 10))
/// print(response.status, response.header("apns-id") ?? "")
/// ```
///
/// Cancelling the calling task cancels its request. The thread and the connections end when the
/// client is released.
public final class HTTP2Client: Sendable {
    public struct Configuration: Sendable {
        /// A PEM file of certificate authorities to trust instead of the system's (e.g. a test CA).
        public var caFile: String?
        /// Connections per origin; more streams than one connection takes wait, or open the next
        /// connection when this allows it.
        public var maxConnectionsPerHost: Int = 1
        /// Streams per connection at most (the peer's SETTINGS may lower it).
        public var maxConcurrentStreams: Int = 1000
        /// Seconds to set up a connection (TCP and TLS).
        public var connectTimeout: TimeInterval = 10
        /// Seconds for a whole exchange, unless the request says otherwise.
        public var requestTimeout: TimeInterval = 30
        /// Larger answers fail with `.responseTooLarge`.
        public var maxResponseBytes: Int = 16 << 20
        /// Speak HTTP/2 over cleartext without negotiation (h2c prior knowledge); off: HTTP/2 over
        /// TLS by ALPN, HTTP/1.1 when the peer offers nothing else.
        public var cleartextHTTP2: Bool = false

        public init(caFile: String? = nil, maxConnectionsPerHost: Int = 1, requestTimeout: TimeInterval = 30) {
            self.caFile = caFile
            self.maxConnectionsPerHost = maxConnectionsPerHost
            self.requestTimeout = requestTimeout
        }

        var httpVersionOption: Int {
            Int(cleartextHTTP2 ? CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE : CURL_HTTP_VERSION_2TLS)
        }
    }

    public let configuration: Configuration
    private let inbox: CurlInbox
    private let nextID = Atomic<UInt64>(0)

    /// Starts the client's thread.
    /// - Throws: `HTTP2ClientError` when libcurl cannot be set up or a setting is out of range.
    public init(configuration: Configuration = Configuration()) throws {
        guard curlGlobalSetUp else { throw HTTP2ClientError(.transport, "libcurl's global set-up failed") }
        guard configuration.maxConnectionsPerHost >= 1, configuration.maxConcurrentStreams >= 1 else {
            throw HTTP2ClientError(
                .invalidRequest, "maxConnectionsPerHost and maxConcurrentStreams must be at least 1")
        }
        if let caFile = configuration.caFile, !FileManager.default.isReadableFile(atPath: caFile) {
            throw HTTP2ClientError(.tls, "the CA file \(caFile) does not exist or cannot be read")
        }
        guard let multi = curl_multi_init() else {
            throw HTTP2ClientError(.transport, "libcurl could not make a multi handle")
        }
        tern_curl_multi_setopt_long(multi, CURLMOPT_PIPELINING, CURLPIPE_MULTIPLEX)
        tern_curl_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, configuration.maxConnectionsPerHost)
        tern_curl_multi_setopt_long(multi, CURLMOPT_MAX_CONCURRENT_STREAMS, configuration.maxConcurrentStreams)
        let inbox = CurlInbox(multi: CurlMultiHandle(pointer: multi))
        self.configuration = configuration
        self.inbox = inbox
        let thread = Thread { CurlLoop.run(inbox: inbox, configuration: configuration) }
        thread.name = "tern-http2-client"
        thread.start()
    }

    deinit {
        inbox.stop()
    }

    /// Sends one request and waits for its answer (any status is an answer).
    /// - Throws: `HTTP2ClientError` when no answer came (timeout, connection, TLS, reset), or
    ///   `CancellationError` when the calling task was cancelled.
    public func send(_ request: HTTP2Request) async throws -> HTTP2Response {
        let id = nextID.wrappingAdd(1, ordering: .relaxed).newValue
        let inbox = inbox
        let prepared = try CurlRequestOptions(request, configuration: configuration)
        return try await withTaskCancellationHandler {
            try Task.checkCancellation()
            return try await withCheckedThrowingContinuation { continuation in
                let submission = CurlSubmission(id: id, prepared: prepared, continuation: continuation)
                if !inbox.submit(submission) { continuation.resume(throwing: CurlSession.shutDownError) }
            }
        } onCancel: {
            inbox.requestCancellation(id)
        }
    }
}
