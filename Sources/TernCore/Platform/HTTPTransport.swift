import Foundation

/// One HTTP request the SDK sends.
public struct TransportRequest: Sendable, Equatable {
    public var url: URL
    public var method: String
    public var headers: [String: String]
    public var body: Data
    /// Seconds before the request is abandoned as a network failure.
    public var timeout: TimeInterval

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
    public var status: Int
    /// Header names in lower case.
    public var headers: [String: String]
    public var body: Data

    public init(status: Int, headers: [String: String] = [:], body: Data = Data()) {
        self.status = status
        self.headers = Dictionary(
            headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { _, last in last })
        self.body = body
    }
}

/// The request never got an HTTP answer (refused, reset, timed out, DNS); retried by the outbox.
public struct TransportError: Error, Sendable, CustomStringConvertible {
    public let reason: String
    public init(_ reason: String) { self.reason = reason }
    public var description: String { reason }
}

/// Sends HTTP requests: `URLSessionTransport` in apps and on Linux; tests may put a real loopback
/// server behind it. Throws ``TransportError`` when there is no HTTP answer.
public protocol HTTPTransport: Sendable {
    func send(_ request: TransportRequest) async throws -> TransportResponse
}
