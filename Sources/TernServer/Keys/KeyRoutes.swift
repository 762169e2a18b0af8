import Foundation
import TernHTTP
import TernProtocol

/// Keys and the audit log through the management API (a `full` key for its project's, the server
/// key for every project's and for server keys):
///
/// - `GET /api/v1/admin/keys[?project_id=N]`: the keys, without secrets
/// - `POST /api/v1/admin/keys` `{"project_id": 1, "role": "send", "name": "ci"}`: a new key; the
///   answer's `secret` is shown this once
/// - `POST /api/v1/admin/keys/{key_id}/rotate` `{"grace_seconds": 300}`: a new secret; the old one
///   works for the grace period, then not
/// - `DELETE /api/v1/admin/keys/{key_id}`: revoked at once
/// - `GET /api/v1/admin/audit[?project_id=N&before=ID&limit=N]`: who changed what, newest first
struct KeyRoutes: Sendable {
    let admin: AdminService

    /// Every route of the group.
    var all: [Route] {
        let keys = admin.keys
        let p = AdminRoutes.prefix
        let listed = RouteGroup([admin.check(.configure, .projectQuery)]) {
            Route.json("GET", "\(p)/keys") { request in
                let projectId = request.http.query["project_id"] == nil ? nil : try request.integer("project_id")
                return try await keys.list(projectId: projectId, by: try request.holder())
            }
            Route.json("GET", "\(p)/audit") { request in
                let query = request.http.query
                let projectId = query["project_id"] == nil ? nil : try request.integer("project_id")
                guard let before = Int64(query["before"] ?? "0"), before >= 0 else {
                    throw APIError.badRequest("before must be an audit entry id (a non-negative integer)")
                }
                guard let limit = Int(query["limit"] ?? "100"), (1...1000).contains(limit) else {
                    throw APIError.badRequest("limit must be an integer from 1 to 1000")
                }
                return try await keys.auditLog(
                    projectId: projectId, before: before, limit: limit, by: try request.holder())
            }
        }
        let create = RouteGroup([admin.check(.configure, .own)]) {
            Route.json("POST", "\(p)/keys", status: 201) { request in
                try await keys.create(
                    try JSONBody.decode(KeyRequests.Create.self, from: request.http), by: try request.holder())
            }
        }
        let change = RouteGroup([admin.check(.configure, .key)]) {
            Route.json("POST", "\(p)/keys/{key_id}/rotate") { request in
                let body =
                    request.http.body.isEmpty
                    ? KeyRequests.Rotate() : try JSONBody.decode(KeyRequests.Rotate.self, from: request.http)
                return try await keys.rotate(id: try request.integer("key_id"), graceSeconds: body.graceSeconds ?? 0)
            }
            Route.noContent("DELETE", "\(p)/keys/{key_id}") { request in
                try await keys.revoke(id: try request.integer("key_id"))
            }
        }
        return listed.all + create.all + change.all
    }
}
