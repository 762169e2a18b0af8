import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// ``HTTPTransport`` over `URLSession`: used on iOS and, through FoundationNetworking, on Linux.
public struct URLSessionTransport: HTTPTransport {
    private let sessions: Sessions

    /// A transport with its own ephemeral sessions (no cookies, no cache, nothing on disk), one per
    /// request timeout: FoundationNetworking ignores a request's own `timeoutInterval` and waits
    /// for the session's (60 s by default), so each timeout gets a session configured with it.
    public init() {
        sessions = Sessions(appSession: nil)
    }

    /// A transport over the app's own session (its delegate, proxy and TLS settings apply). On
    /// Linux the session's `timeoutIntervalForRequest` bounds every request, whatever its timeout.
    ///
    /// - Parameter session: The session to send with.
    public init(session: URLSession) {
        sessions = Sessions(appSession: session)
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
        let session = await sessions.session(timeout: request.timeout)
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

extension URLSessionTransport {
    /// The app's session, or the transport's own, made on first use for each request timeout and
    /// let go (once their tasks end) with the last copy of the transport.
    actor Sessions {
        private let appSession: URLSession?
        private var own: [TimeInterval: URLSession] = [:]

        init(appSession: URLSession?) {
            self.appSession = appSession
        }

        func session(timeout: TimeInterval) -> URLSession {
            if let appSession { return appSession }
            if let session = own[timeout] { return session }
            let configuration = URLSessionConfiguration.ephemeral
            configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
            configuration.httpCookieStorage = nil
            configuration.urlCache = nil
            // Whole seconds: FoundationNetworking truncates, and 0.5 s would time out at once.
            configuration.timeoutIntervalForRequest = max(1, timeout.rounded(.up))
            let session = URLSession(configuration: configuration)
            own[timeout] = session
            return session
        }

        deinit {
            for session in own.values { session.finishTasksAndInvalidate() }
        }
    }
}
