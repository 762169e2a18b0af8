import Foundation
import TernHTTP
import TernProtocol

/// The management API for provider credentials (reading needs a `read` key of the project,
/// changing a `full` one, or the server key):
///
/// - `GET /api/v1/admin/projects/{project_id}/credentials`: what is configured, without secrets
/// - `PUT /api/v1/admin/projects/{project_id}/credentials/{provider}` (`apns`, `fcm`, `hms`): store one
/// - `DELETE /api/v1/admin/projects/{project_id}/credentials/{provider}`
///
/// A PUT's body is the credential's JSON (for FCM, the service-account file as Google gives it);
/// the answer is its summary, never the key or secret.
struct CredentialRoutes: Sendable {
    let credentials: CredentialStore?
    let admin: AdminService
    let logger: Logger?

    /// `credentials` nil: the routes exist but answer 503 (a server without a data directory).
    init(credentials: CredentialStore?, admin: AdminService, logger: Logger? = nil) {
        self.credentials = credentials
        self.admin = admin
        self.logger = logger
    }

    var all: [Route] {
        let base = "\(AdminRoutes.prefix)/projects/{project_id}/credentials"
        let logger = logger
        let read = RouteGroup([admin.check(.read, .projectPath), CredentialsKept(credentials: credentials)]) {
            Route.json("GET", base) { request in
                let projectId = try await project(request)
                return try await kept().summaries(projectId: projectId)
            }
        }
        let change = RouteGroup([admin.check(.configure, .projectPath), CredentialsKept(credentials: credentials)]) {
            Route.json("PUT", base + "/{provider}") { request in
                let projectId = try await project(request)
                let kind = try Self.kind(request)
                try JSONLimitScanner(limits: .standard).check(request.http.body)
                let summary: CredentialSummary
                do {
                    summary = try await kept().put(kind, projectId: projectId, json: request.http.body)
                } catch let error as CredentialError {
                    throw APIError.badRequest(error.reason)
                }
                logger?.info(
                    "provider credentials stored",
                    ["project_id": projectId, "provider": kind.credentialName, "fingerprint": summary.fingerprint])
                return summary
            }
            Route.noContent("DELETE", base + "/{provider}") { request in
                let projectId = try await project(request)
                let kind = try Self.kind(request)
                guard try await kept().delete(kind, projectId: projectId) else {
                    throw APIError.notFound("project \(projectId) has no \(kind.title) credentials")
                }
                logger?.info(
                    "provider credentials removed", ["project_id": projectId, "provider": kind.credentialName])
            }
        }
        return read.all + change.all
    }

    /// The store; ``CredentialsKept`` has answered 503 before a route runs without one.
    private func kept() throws -> CredentialStore {
        guard let credentials else { throw CredentialsKept.none }
        return credentials
    }

    private func project(_ request: RouteRequest) async throws -> Int64 {
        let projectId = try request.integer("project_id")
        _ = try await admin.databases(projectId: projectId)  // 404 with the reason when there is no such project
        return projectId
    }

    static func kind(_ request: RouteRequest) throws(APIError) -> PushProvider {
        let name = request.parameter("provider")
        guard let kind = PushProvider(credentialName: name) else {
            throw .notFound("provider \"\(name)\" is not apns, fcm or hms")
        }
        return kind
    }
}

/// Answers 503 on a server that keeps no provider credentials (it has no data directory).
struct CredentialsKept: RouteMiddleware {
    static let none = APIError(
        status: 503, reason: "this server keeps no provider credentials (it has no data directory)")
    let credentials: CredentialStore?

    func respond(to request: RouteRequest, next: Route.Handler) async throws -> HTTPResponse {
        guard credentials != nil else { throw Self.none }
        return try await next(request)
    }
}
