import Foundation
import TernHTTP
import TernProtocol

/// The management routes of message templates under `/api/v1/admin/templates`: reading needs a
/// `read` key, creating, replacing, changing and deleting a `send` key (as segments: a template is
/// what messages say); a project key reaches its own project's templates only.
struct TemplateRoutes: Sendable {
    let service: TemplateService
    let admin: AdminService

    var all: [Route] {
        let service = service
        let keys = admin.keys
        let p = AdminRoutes.prefix + "/templates"
        let list = RouteGroup([AdminKeyCheck(keys: keys, needs: .read, scope: .projectQuery)]) {
            Route.json("GET", p) { request in
                let query = request.http.query
                guard let after = Int64(query["after"] ?? "0"), after >= 0 else {
                    throw APIError.badRequest("after must be a template id (a non-negative integer)")
                }
                guard let limit = Int(query["limit"] ?? "100"), (1...1000).contains(limit) else {
                    throw APIError.badRequest("limit must be an integer from 1 to 1000")
                }
                return try await service.templates(
                    projectId: query["project_id"] == nil ? nil : try request.integer("project_id"), afterId: after,
                    limit: limit)
            }
        }
        let create = RouteGroup([AdminKeyCheck(keys: keys, needs: .send, scope: .bodyProject)]) {
            Route.json("POST", p, status: 201) { request in
                try await service.create(
                    try JSONBody.decode(TemplateSpec.self, from: request.http), keyProject: request.keyHolder?.projectId
                )
            }
        }
        let read = RouteGroup([AdminKeyCheck(keys: keys, needs: .read, scope: .template)]) {
            Route.json("GET", "\(p)/{template_id}") { request in
                try await service.template(id: try request.integer("template_id"))
            }
        }
        let change = RouteGroup([AdminKeyCheck(keys: keys, needs: .send, scope: .template)]) {
            Route.json("PUT", "\(p)/{template_id}") { request in
                try await service.replace(
                    id: try request.integer("template_id"), try JSONBody.decode(TemplateSpec.self, from: request.http))
            }
            Route.json("PATCH", "\(p)/{template_id}") { request in
                try await service.change(
                    id: try request.integer("template_id"), try JSONBody.decode(TemplateSpec.self, from: request.http))
            }
            Route.noContent("DELETE", "\(p)/{template_id}") { request in
                try await service.delete(id: try request.integer("template_id"))
            }
        }
        return [list, create, read, change].flatMap(\.all)
    }
}
