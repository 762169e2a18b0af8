import Foundation
import TernHTTP
import TernProtocol

/// Lets a management request through only with `Authorization: Bearer <admin_key>`: the middleware
/// of every admin group (projects, messages, credentials).
struct AdminKeyCheck: RouteMiddleware {
    let service: AdminService

    func respond(to request: RouteRequest, next: Route.Handler) async throws -> HTTPResponse {
        guard let authorization = request.http.header(Wire.authorizationHeader),
            let key = try? Authenticator.bearer(authorization), try await service.isAdminKey(key)
        else {
            throw APIError.unauthorized(
                "admin key missing or not recognised: send Authorization: Bearer <admin_key> (see bootstrap.json)")
        }
        return try await next(request)
    }
}
