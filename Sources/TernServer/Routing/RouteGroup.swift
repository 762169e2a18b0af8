import Foundation
import TernHTTP

/// Something every route of a group passes through: a check before the handler (the admin key,
/// the SDK's credentials), or a step around it (idempotency).
protocol RouteMiddleware: Sendable {
    func respond(to request: RouteRequest, next: Route.Handler) async throws -> HTTPResponse
}

/// Routes that share their middleware: the admin API behind the admin key, the SDK's endpoints
/// behind authentication and idempotency. The middleware is applied once, here.
///
/// ```swift
/// RouteGroup([AdminKeyCheck(service: admin)]) {
///     Route.json("GET", "/api/v1/admin/projects") { _ in try await admin.projects() }
/// }
/// ```
struct RouteGroup: Sendable {
    let middleware: [any RouteMiddleware]
    let routes: [Route]

    init(_ middleware: [any RouteMiddleware] = [], routes: [Route]) {
        self.middleware = middleware
        self.routes = routes
    }

    init(_ middleware: [any RouteMiddleware] = [], @RouteListBuilder _ routes: () -> [Route]) {
        self.init(middleware, routes: routes())
    }

    /// The group's routes, each behind the group's middleware.
    var all: [Route] { routes.map { $0.behind(middleware) } }
}

/// Lists routes one per line, with `if` for optional ones.
@resultBuilder
enum RouteListBuilder {
    static func buildExpression(_ route: Route) -> [Route] { [route] }
    static func buildExpression(_ routes: [Route]) -> [Route] { routes }
    static func buildBlock(_ parts: [Route]...) -> [Route] { parts.flatMap { $0 } }
    static func buildOptional(_ part: [Route]?) -> [Route] { part ?? [] }
    static func buildEither(first: [Route]) -> [Route] { first }
    static func buildEither(second: [Route]) -> [Route] { second }
}
