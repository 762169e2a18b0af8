import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A small HTTP client for tests: JSON in, status, headers and body out. Plain http over loopback.
///
/// ```swift
/// let client = JSONHTTPClient()
/// let answer = try await client.post(url, json: ["time": 1], headers: ["X-Tern-RToken": rToken])
/// #expect(answer.status == 200)
/// ```
public struct JSONHTTPClient: Sendable {
    /// One answer.
    public struct Answer: Sendable {
        public let status: Int
        public let headers: [String: String]
        public let body: Data

        /// The body as a JSON object, or nil.
        public var json: [String: Any]? { try? JSONSerialization.jsonObject(with: body) as? [String: Any] }

        /// The body as a JSON array, or nil.
        public var jsonArray: [Any]? { try? JSONSerialization.jsonObject(with: body) as? [Any] }

        public var text: String { String(decoding: body, as: UTF8.self) }

        /// A header by name, case-insensitively.
        public func header(_ name: String) -> String? {
            headers.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value
        }

        /// Decodes the body as `T`.
        public func decode<T: Decodable>(_ type: T.Type) throws -> T { try JSONDecoder().decode(type, from: body) }
    }

    private let session: URLSession

    public init(timeout: TimeInterval = 30) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        configuration.httpMaximumConnectionsPerHost = 64
        session = URLSession(configuration: configuration)
    }

    /// Sends any request.
    public func send(_ method: String, _ url: URL, body: Data? = nil, headers: [String: String] = [:]) async throws
        -> Answer
    {
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.httpBody = body
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        if body != nil, headers.keys.allSatisfy({ $0.lowercased() != "content-type" }) {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let (data, response) = try await session.data(for: request)
        let http = response as? HTTPURLResponse
        var fields: [String: String] = [:]
        for (name, value) in http?.allHeaderFields ?? [:] {
            fields["\(name)"] = "\(value)"
        }
        return Answer(status: http?.statusCode ?? 0, headers: fields, body: data)
    }

    /// POSTs a JSON object (anything `JSONSerialization` takes).
    public func post(_ url: URL, json: Any, headers: [String: String] = [:]) async throws -> Answer {
        try await send(
            "POST", url, body: try JSONSerialization.data(withJSONObject: json, options: [.sortedKeys]),
            headers: headers)
    }

    /// POSTs raw bytes as JSON.
    public func post(_ url: URL, body: Data, headers: [String: String] = [:]) async throws -> Answer {
        try await send("POST", url, body: body, headers: headers)
    }

    public func get(_ url: URL, headers: [String: String] = [:]) async throws -> Answer {
        try await send("GET", url, headers: headers)
    }
}
