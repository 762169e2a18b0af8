import Foundation
import TernHTTP

/// A request matched to a route: the HTTP request, the path's parameters, its id for the logs, and
/// what the group's middleware established (the caller, the idempotency token).
struct RouteRequest: Sendable {
    /// The HTTP request (`AdminKeyCheck` may fill in a project key's `project_id` query).
    var http: HTTPRequest
    let parameters: [String: String]
    let requestId: String
    /// The route's name: the SDK endpoint, or `admin/messages`; idempotency fingerprints cover it.
    let routeName: String
    /// The SDK caller, set by `CallerAuthentication`.
    var caller: Caller?
    /// The management-API key the request was made with, set by `AdminKeyCheck`.
    var keyHolder: KeyHolder?
    /// The idempotency token, set by `IdempotencyKeys`.
    var idempotency: IdempotencyToken?

    init(http: HTTPRequest, parameters: [String: String], requestId: String, routeName: String = "") {
        self.http = http
        self.parameters = parameters
        self.requestId = requestId
        self.routeName = routeName
    }

    /// The path parameter (or query item) `name` as an integer, or a 400 that says which.
    func integer(_ name: String) throws(APIError) -> Int64 {
        guard let text = parameters[name] ?? http.query[name], let value = Int64(text) else {
            throw .badRequest("\(name) must be an integer")
        }
        return value
    }

    /// The path parameter `name` (empty when the pattern has none).
    func parameter(_ name: String) -> String { parameters[name] ?? "" }

    /// The caller that ``CallerAuthentication`` established; a route outside such a group has none.
    func authenticated() throws -> Caller {
        guard let caller else { throw APIError(status: 500, reason: "route \(routeName) runs without authentication") }
        return caller
    }

    /// The key `AdminKeyCheck` established; a route outside such a group has none.
    func holder() throws -> KeyHolder {
        guard let keyHolder else { throw APIError(status: 500, reason: "route \(routeName) runs without a key check") }
        return keyHolder
    }

    /// The token that ``IdempotencyKeys`` made; a route outside such a group has none.
    func idempotencyToken() throws -> IdempotencyToken {
        guard let idempotency else {
            throw APIError(status: 500, reason: "route \(routeName) runs without idempotency")
        }
        return idempotency
    }
}

/// One method and path template (`/api/v1/admin/resources/{resource_id}`) with its handler.
public struct Route: Sendable {
    typealias Handler = @Sendable (RouteRequest) async throws -> HTTPResponse

    let method: String
    let pattern: String
    /// The name idempotency fingerprints and logs use; the pattern unless given.
    let name: String
    let handler: Handler

    init(_ method: String, _ pattern: String, name: String? = nil, _ handler: @escaping Handler) {
        self.method = method
        self.pattern = pattern
        self.name = name ?? pattern
        self.handler = handler
    }

    /// A route that answers `status` with its output as plain JSON (or nothing, for 204).
    static func json<Output: Encodable & Sendable>(
        _ method: String, _ pattern: String, status: Int = 200,
        _ body: @escaping @Sendable (RouteRequest) async throws -> Output
    ) -> Route {
        Route(method, pattern) { request in
            let output = try await body(request)
            return status == 204 ? HTTPResponse(status: 204) : .json(status, try JSONCoders.encoder.encode(output))
        }
    }

    /// A route that answers 204 once `body` is done.
    static func noContent(
        _ method: String, _ pattern: String, _ body: @escaping @Sendable (RouteRequest) async throws -> Void
    ) -> Route {
        Route(method, pattern) { request in
            try await body(request)
            return HTTPResponse(status: 204)
        }
    }

    /// This route with `middleware` around its handler, the first outermost.
    func behind(_ middleware: [any RouteMiddleware]) -> Route {
        let handler = middleware.reversed().reduce(self.handler) { next, layer in
            { request in try await layer.respond(to: request, next: next) }
        }
        return Route(method, pattern, name: name, handler)
    }
}
