import Foundation

/// One request for `HTTP2Client`.
///
/// ```swift
/// var request = HTTP2Request(method: "POST", url: URL(string: "https://api.push.apple.com/3/device/\(token)")!)
/// request.headers = [("apns-topic", "com.example.app"), ("authorization", "bearer \(jwt)")]
/// request.body = payload
/// request.timeout = 10
/// ```
public struct HTTP2Request: Sendable {
    /// `"GET"`, `"POST"`, ...
    public var method: String
    public var url: URL
    /// Header fields in order; names are sent lowercased on HTTP/2.
    public var headers: [(String, String)]
    public var body: Data
    /// Seconds for the whole exchange; nil: the client's `requestTimeout`.
    public var timeout: TimeInterval?

    public init(
        method: String = "GET", url: URL, headers: [(String, String)] = [], body: Data = Data(),
        timeout: TimeInterval? = nil
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
    }
}

/// The peer's answer.
public struct HTTP2Response: Sendable {
    public var status: Int
    /// Header fields in order, names lowercased.
    public var headers: [(String, String)]
    public var body: Data
    /// The protocol the exchange used: `"2"`, or `"1.1"` when the peer did not offer HTTP/2.
    public var httpVersion: String

    public init(status: Int, headers: [(String, String)], body: Data, httpVersion: String) {
        self.status = status
        self.headers = headers
        self.body = body
        self.httpVersion = httpVersion
    }

    /// The value of the first header named `name` (case-insensitive).
    public func header(_ name: String) -> String? {
        let lowered = name.lowercased()
        return headers.first { $0.0 == lowered }?.1
    }
}
