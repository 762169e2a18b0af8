import Foundation
import TernProtocol

extension AdminService {
    /// Lets a management request through only with `Authorization: Bearer <admin_key>`; every
    /// admin route (projects, messages, credentials) asks this first.
    func requireAdminKey(_ request: RouteRequest) async throws {
        guard let authorization = request.http.header(Wire.authorizationHeader),
            let key = try? Authenticator.bearer(authorization), try await isAdminKey(key)
        else {
            throw APIError.unauthorized(
                "admin key missing or not recognised: send Authorization: Bearer <admin_key> (see bootstrap.json)")
        }
    }
}
