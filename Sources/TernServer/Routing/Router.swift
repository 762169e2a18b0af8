import Foundation
import TernCrypto
import TernHTTP
import TernProtocol

/// The server's ``HTTPHandler``: matches a route, runs it, turns errors into envelopes, and records
/// every answer in the metrics and the log.
public struct Router: HTTPHandler {
    public let routes: [Route]
    let metrics: Metrics
    let logger: Logger

    public init(routes: [Route], metrics: Metrics, logger: Logger) {
        self.routes = routes
        self.metrics = metrics
        self.logger = logger
    }

    public func handle(_ request: HTTPRequest) async -> HTTPResponse {
        let started = ContinuousClock.now
        let requestId = Self.requestId(request)
        let parts = Route.split(request.path)
        let matches = routes.compactMap { route in route.match(parts).map { (route, $0) } }
        var routeName = "unmatched"
        var response: HTTPResponse
        var failure: String?
        if let (route, parameters) = matches.first(where: { $0.0.method == request.method }) {
            routeName = route.pattern
            do {
                response = try await route.handler(
                    RouteRequest(http: request, parameters: parameters, requestId: requestId))
            } catch {
                (response, failure) = answer(for: error)
            }
        } else if !matches.isEmpty {
            let allowed = Set(matches.map(\.0.method)).sorted().joined(separator: ", ")
            routeName = matches[0].0.pattern
            response = Self.error(405, "\(request.method) is not allowed on \(routeName): use \(allowed)")
            response.headers.append(("Allow", allowed))
        } else {
            response = Self.error(
                404, "no route \(request.method) \(request.path.prefix(200)): see docs/api/openapi.yaml")
        }
        response.headers.append(("X-Request-Id", requestId))
        let elapsed = ContinuousClock.now - started
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        metrics.recordRequest(route: routeName, status: response.status, seconds: seconds)
        var fields: [String: any Sendable] = [
            "route": routeName, "method": request.method, "status": response.status,
            "duration_ms": (seconds * 1_000_000).rounded() / 1000, "request_id": requestId,
        ]
        if let failure { fields["error"] = failure }
        logger.log(response.status >= 500 ? .error : .info, "request", fields)
        return response
    }

    /// Maps what a handler threw to an answer, and the reason to log for server-side failures.
    func answer(for error: any Error) -> (HTTPResponse, String?) {
        switch error {
        case let error as APIError:
            return (Self.error(error.status, error.reason), nil)
        case let error as DecodingError:
            return (Self.error(400, JSONBody.describe(error)), nil)
        case let error as StoreError:
            metrics.recordStoreError(kind: error.kind)
            switch error {
            case .busy, .closed:
                var response = Self.error(503, "the store is busy or shutting down: retry shortly")
                response.headers.append(("Retry-After", "1"))
                return (response, error.description)
            case .conflict:
                return (
                    Self.error(409, "conflict: the request collided with another change; retry it"), error.description
                )
            case .backend:
                return (Self.error(500, "internal store error; the server log has the details"), error.description)
            }
        default:
            return (Self.error(500, "internal error; the server log has the details"), "\(error)")
        }
    }

    /// The envelope for an error.
    public static func error(_ status: Int, _ reason: String) -> HTTPResponse {
        .envelopeError(status, reason)
    }

    static func requestId(_ request: HTTPRequest) -> String {
        if let sent = request.header("X-Request-Id"), (1...64).contains(sent.count),
            sent.unicodeScalars.allSatisfy({ $0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-" })
        {
            return sent
        }
        return Digest.randomHex(bytes: 8)
    }
}
