import Foundation
import TernHTTP
import TernProtocol

/// The identity binding's routes: the SDK's (`identity/status`, `identity/policy`,
/// `identity/change`) in an SDK group, and the management API's (a project's policy, an
/// installation's binding) behind the admin key.
struct IdentityRoutes: Sendable {
    let identity: IdentityService
    let authenticator: Authenticator
    let admin: AdminService
    let metrics: Metrics

    /// Every identity route.
    var all: [Route] {
        let identity = identity
        // No `IdempotencyKeys`: a change is idempotent by its own operation id, per installation.
        let sdk = RouteGroup(
            [CallerAuthentication(authenticator: authenticator)],
            routes: [
                .identity(.identityStatus, IdentityInstallationRequest.self) { request, caller in
                    Answer(
                        status: 200,
                        body: try JSONCoders.encoder.encode(try await identity.status(request, caller: caller)))
                },
                .identity(.identityPolicy, IdentityInstallationRequest.self) { request, caller in
                    Answer(
                        status: 200,
                        body: try JSONCoders.encoder.encode(
                            try await identity.policyAndBinding(request, caller: caller)))
                },
                .identity(.identityChange, IdentityChangeRequest.self) { request, caller in
                    try await identity.change(request, caller: caller)
                },
            ])
        let p = AdminRoutes.prefix
        let readPolicy = RouteGroup([admin.check(.read, .projectPath)]) {
            Route.json("GET", "\(p)/projects/{project_id}/identity-policy") { request in
                try await identity.policy(projectId: try request.integer("project_id"))
            }
        }
        let setPolicy = RouteGroup([admin.check(.configure, .projectPath)]) {
            Route.json("PUT", "\(p)/projects/{project_id}/identity-policy") { request in
                try await identity.setPolicy(
                    projectId: try request.integer("project_id"),
                    try JSONBody.decode(IdentityPolicyChange.self, from: request.http))
            }
        }
        let readInstallation = RouteGroup([admin.check(.read, .resource)]) {
            Route.json("GET", "\(p)/resources/{resource_id}/identity") { request in
                let query = request.http.query
                return try await identity.installation(
                    resourceId: try request.integer("resource_id"), provider: query["provider"] ?? "",
                    token: query["subscription_id"] ?? "")
            }
        }
        return sdk.all + [readPolicy, setPolicy, readInstallation].flatMap(\.all)
    }
}

extension Route {
    /// An identity endpoint: decodes `Body` (a malformed body answers 400 naming the member), runs
    /// `body` with the caller; its group supplies the caller.
    static func identity<Body: Decodable & Sendable>(
        _ endpoint: Endpoint, _ type: Body.Type, _ body: @escaping @Sendable (Body, Caller) async throws -> Answer
    ) -> Route {
        Route(endpoint.method, endpoint.path, name: endpoint.rawValue) { request in
            let caller = try request.authenticated()
            let decoded: Body
            do {
                decoded = try JSONBody.decode(Body.self, from: request.http, limits: .standard)
            } catch let error as DecodingError {
                throw IdentityError(
                    status: 400, code: IdentityWire.invalidRequest, field: Self.field(of: error),
                    reason: JSONBody.describe(error))
            }
            return try await body(decoded, caller).response
        }
    }

    /// The member a decoding failure is about (`operation`, `expected_binding_id`), nil for the body.
    static func field(of error: DecodingError) -> String? {
        let names: [String]
        switch error {
        case .keyNotFound(let key, let context): names = context.codingPath.map(\.stringValue) + [key.stringValue]
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            names = context.codingPath.map(\.stringValue)
        @unknown default: names = []
        }
        return names.isEmpty ? nil : names.joined(separator: ".")
    }
}
