import Foundation
import TernHTTP
import TernProtocol

/// The management API for provider credentials, under the admin key:
///
/// - `GET /api/v1/admin/projects/{project_id}/credentials`: what is configured, without secrets
/// - `PUT /api/v1/admin/projects/{project_id}/credentials/{provider}` (`apns`, `fcm`, `hms`): store one
/// - `DELETE /api/v1/admin/projects/{project_id}/credentials/{provider}`
///
/// A PUT's body is the credential's JSON (for FCM, the service-account file as Google gives it);
/// the answer is its summary, never the key or secret.
public struct CredentialRoutes: Sendable {
    let credentials: CredentialStore?
    let admin: AdminService
    let logger: Logger?

    /// `credentials` nil: the routes exist but answer 503 (a server without a data directory).
    public init(credentials: CredentialStore?, admin: AdminService, logger: Logger? = nil) {
        self.credentials = credentials
        self.admin = admin
        self.logger = logger
    }

    public var all: [Route] {
        let base = "\(AdminRoutes.prefix)/projects/{project_id}/credentials"
        return [
            route("GET", base) { credentials, request in
                let projectId = try await project(request)
                return .json(200, try JSONCoders.encoder.encode(await credentials.summaries(projectId: projectId)))
            },
            route("PUT", base + "/{provider}") { credentials, request in
                let projectId = try await project(request)
                let kind = try Self.kind(request)
                try JSONLimitScanner(limits: .standard).check(request.http.body)
                let summary: CredentialSummary
                do {
                    summary = try await credentials.put(kind, projectId: projectId, json: request.http.body)
                } catch let error as CredentialError {
                    throw APIError.badRequest(error.reason)
                }
                logger?.info(
                    "provider credentials stored",
                    ["project_id": projectId, "provider": kind.rawValue, "fingerprint": summary.fingerprint])
                return .json(200, try JSONCoders.encoder.encode(summary))
            },
            route("DELETE", base + "/{provider}") { credentials, request in
                let projectId = try await project(request)
                let kind = try Self.kind(request)
                guard await credentials.delete(kind, projectId: projectId) else {
                    throw APIError.notFound("project \(projectId) has no \(kind.title) credentials")
                }
                logger?.info("provider credentials removed", ["project_id": projectId, "provider": kind.rawValue])
                return HTTPResponse(status: 204)
            },
        ]
    }

    private func project(_ request: RouteRequest) async throws -> Int64 {
        let projectId = try request.integer("project_id")
        _ = try await admin.databases(projectId: projectId)  // 404 with the reason when there is no such project
        return projectId
    }

    static func kind(_ request: RouteRequest) throws(APIError) -> ProviderKind {
        let name = request.parameters["provider"] ?? ""
        guard let kind = ProviderKind(rawValue: name) else {
            throw .notFound("provider \"\(name)\" is not apns, fcm or hms")
        }
        return kind
    }

    private func route(
        _ method: String, _ pattern: String,
        _ body: @escaping @Sendable (CredentialStore, RouteRequest) async throws -> HTTPResponse
    ) -> Route {
        let admin = admin
        let credentials = credentials
        return Route(method, pattern) { request in
            try await admin.requireAdminKey(request)
            guard let credentials else {
                throw APIError(
                    status: 503, reason: "this server keeps no provider credentials (it has no data directory)")
            }
            return try await body(credentials, request)
        }
    }
}
