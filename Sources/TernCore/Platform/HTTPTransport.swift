import Foundation

/// One HTTP request the SDK sends.
public struct TransportRequest: Sendable, Equatable {
    /// The full URL: the configuration's `apiUrl` joined with the endpoint.
    public var url: URL
    /// The HTTP method, `POST` for every SDK request.
    public var method: String
    /// Request headers, e.g. `Authorization`, `X-Tern-RToken`, `Idempotency-Key`, `Content-Type`.
    public var headers: [String: String]
    /// The JSON body.
    public var body: Data
    /// Seconds before the request is abandoned as a network failure.
    public var timeout: TimeInterval

    /// Describes a request.
    ///
    /// - Parameters:
    ///   - url: Where it goes.
    ///   - method: The HTTP method; default `POST`.
    ///   - headers: Its headers; default none.
    ///   - body: Its body.
    ///   - timeout: Seconds before it is abandoned as a network failure; default 30.
    public init(
        url: URL, method: String = "POST", headers: [String: String] = [:], body: Data, timeout: TimeInterval = 30
    ) {
        self.url = url
        self.method = method
        self.headers = headers
        self.body = body
        self.timeout = timeout
    }
}

/// The answer to a ``TransportRequest``.
public struct TransportResponse: Sendable, Equatable {
    /// The HTTP status code.
    public var status: Int
    /// Header names in lower case.
    public var headers: [String: String]
    /// The answer's body (the JSON envelope for Tern's endpoints).
    public var body: Data

    /// Describes an answer.
    ///
    /// - Parameters:
    ///   - status: The HTTP status code.
    ///   - headers: Its headers; names are lower-cased. Default none.
    ///   - body: Its body; default empty.
    public init(status: Int, headers: [String: String] = [:], body: Data = Data()) {
        self.status = status
        self.headers = Dictionary(
            headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { _, last in last })
        self.body = body
    }
}

/// The request never got an HTTP answer (refused, reset, timed out, DNS); retried by the outbox.
public struct TransportError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, e.g. "no answer from push.example.com: The request timed out."
    public let reason: String
    /// A failure with `reason`.
    ///
    /// - Parameter reason: What went wrong, in words a person can act on.
    public init(_ reason: String) { self.reason = reason }
    public var description: String { reason }
}

/// Sends HTTP requests: `URLSessionTransport` in apps and on Linux; tests may put a real loopback
/// server behind it. Throws ``TransportError`` when there is no HTTP answer.
public protocol HTTPTransport: Sendable {
    /// Sends `request` and returns the server's answer, whatever its status.
    ///
    /// - Parameter request: The request.
    /// - Returns: The HTTP answer (4xx and 5xx included).
    /// - Throws: ``TransportError`` when no HTTP answer came (refused, reset, timed out, DNS).
    func send(_ request: TransportRequest) async throws -> TransportResponse
}
