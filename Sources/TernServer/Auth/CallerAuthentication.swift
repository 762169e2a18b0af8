import Foundation
import TernHTTP
import TernProtocol

/// Establishes the SDK caller from `X-Tern-RToken` and `Authorization` before the handler runs:
/// the middleware of the SDK's endpoints.
struct CallerAuthentication: RouteMiddleware {
    let authenticator: Authenticator

    func respond(to request: RouteRequest, next: Route.Handler) async throws -> HTTPResponse {
        var request = request
        request.caller = try await authenticator.caller(
            rToken: request.http.header(Wire.rTokenHeader),
            authorization: request.http.header(Wire.authorizationHeader))
        return try await next(request)
    }
}
