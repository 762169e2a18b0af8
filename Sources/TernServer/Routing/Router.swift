import Foundation
import TernHTTP
import TernProtocol

/// The server's `HTTPHandler`: looks the route up in its table, runs it, sends what a thrown
/// error renders, and records every answer in the metrics and the log.
public struct Router: HTTPHandler {
    let routes: [Route]
    let table: RouteTable
    let metrics: Metrics
    let logger: Logger

    /// Makes a router over `routes`.
    ///
    /// - Parameters:
    ///   - routes: Every route the server answers, with their middleware.
    ///   - metrics: Where each answer's route, status and latency are counted.
    ///   - logger: Where each request is logged.
    public init(routes: [Route], metrics: Metrics, logger: Logger) {
        self.routes = routes
        self.table = RouteTable(routes)
        self.metrics = metrics
        self.logger = logger
    }

    /// Answers one request: the route's answer, the envelope of the error it threw, 404 for an unknown
    /// path, or 405 for a known path with another method.
    ///
    /// - Parameter request: The request as the HTTP server read it.
    /// - Returns: The answer to send.
    public func handle(_ request: HTTPRequest) async -> HTTPResponse {
        // Only the management API takes keys; SDK requests skip the note (they are the hot path).
        guard request.path.hasPrefix(AdminRoutes.prefix) else { return await route(request) }
        return await KeyNote.$current.withValue(KeyNote()) { await route(request) }
    }

    /// Looks up, runs, counts and logs one request (inside its ``KeyNote``).
    func route(_ request: HTTPRequest) async -> HTTPResponse {
        let started = ContinuousClock.now
        let requestId = Self.requestId(request)
        var routeName = "unmatched"
        var response: HTTPResponse
        var failure: String?
        switch table.match(method: request.method, path: request.path) {
        case .found(let route, let parameters):
            routeName = route.pattern
            do {
                response = try await route.handler(
                    RouteRequest(http: request, parameters: parameters, requestId: requestId, routeName: route.name))
            } catch {
                (response, failure) = answer(for: error)
            }
        case .methodNotAllowed(let methods, let pattern):
            let allowed = methods.joined(separator: ", ")
            routeName = pattern
            response = .envelope(405, "\(request.method) is not allowed on \(pattern): use \(allowed)")
            response.headers.append(("Allow", allowed))
        case .notFound:
            response = .envelope(
                404, "no route \(request.method) \(request.path.prefix(200)): see docs/api/openapi.yaml")
        }
        response.headers.append(("X-Request-Id", requestId))
        let elapsed = ContinuousClock.now - started
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        metrics.recordRequest(route: routeName, status: response.status, seconds: seconds)
        logger.request(
            response.status >= 500 ? .error : .info, route: routeName, method: request.method,
            status: response.status, durationMs: (seconds * 1_000_000).rounded() / 1000, requestId: requestId,
            error: failure)
        return response
    }

    /// What a handler threw, as an answer, and the reason to log for server-side failures.
    func answer(for error: any Error) -> (HTTPResponse, String?) {
        guard let error = error as? any HTTPResponseError else {
            return (.envelope(500, "internal error; the server log has the details"), "\(error)")
        }
        error.record(in: metrics)
        return (error.response, error.logReason)
    }

    static func requestId(_ request: HTTPRequest) -> String {
        if let sent = request.header("X-Request-Id"), (1...64).contains(sent.count),
            sent.unicodeScalars.allSatisfy({ $0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-" })
        {
            return sent
        }
        return RequestIdSource.shared.next()
    }
}
