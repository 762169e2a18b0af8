import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// ``HTTPTransport`` over `URLSession`: used on iOS and, through FoundationNetworking, on Linux.
public struct URLSessionTransport: HTTPTransport {
    private let session: URLSession

    /// A transport with its own ephemeral session (no cookies, no cache, nothing on disk).
    public init() {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.httpCookieStorage = nil
        configuration.urlCache = nil
        session = URLSession(configuration: configuration)
    }

    /// A transport over the app's own session (its delegate, proxy and TLS settings apply).
    ///
    /// - Parameter session: The session to send with.
    public init(session: URLSession) {
        self.session = session
    }

    /// Sends `request` with a data task and returns the answer, whatever its status.
    ///
    /// - Parameter request: The request.
    /// - Returns: The HTTP answer, header names lower-cased.
    /// - Throws: ``TransportError`` when no HTTP answer came.
    public func send(_ request: TransportRequest) async throws -> TransportResponse {
        var urlRequest = URLRequest(url: request.url, timeoutInterval: request.timeout)
        urlRequest.httpMethod = request.method
        urlRequest.httpBody = request.body
        for (name, value) in request.headers {
            urlRequest.setValue(value, forHTTPHeaderField: name)
        }
        // The completion-handler form, not `data(for:)`: on Linux, cancelling `data(for:)` while its
        // answer arrives can deadlock FoundationNetworking (seen when a simulated device shut down
        // mid-request). A request ends by its answer or its own timeout instead.
        let url = request.url
        return try await withCheckedThrowingContinuation { continuation in
            session.dataTask(with: urlRequest) { data, response, error in
                if let error {
                    continuation.resume(
                        throwing: TransportError(
                            "no answer from \(url.host ?? "the server"): \(error.localizedDescription)"))
                    return
                }
                guard let http = response as? HTTPURLResponse else {
                    continuation.resume(throwing: TransportError("the answer from \(url.absoluteString) is not HTTP"))
                    return
                }
                var headers: [String: String] = [:]
                for (name, value) in http.allHeaderFields {
                    if let name = name as? String, let value = value as? String { headers[name.lowercased()] = value }
                }
                continuation.resume(
                    returning: TransportResponse(status: http.statusCode, headers: headers, body: data ?? Data()))
            }.resume()
        }
    }
}
