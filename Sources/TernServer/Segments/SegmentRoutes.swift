import Foundation
import TernHTTP
import TernProtocol

/// The management routes of segments under `/api/v1/admin/segments`, and the preview of a filter
/// not saved yet (`POST /api/v1/admin/audience/preview`): reading and previewing need
/// a `read` key, creating, editing and deleting a `send` key (a segment picks who messages reach);
/// a project key reaches its own project's segments only.
struct SegmentRoutes: Sendable {
    let service: SegmentService
    let admin: AdminService

    var all: [Route] {
        let service = service
        let keys = admin.keys
        let p = "/api/v1/admin/segments"
        let list = RouteGroup([AdminKeyCheck(keys: keys, needs: .read, scope: .projectQuery)]) {
            Route.json("GET", p) { request in
                try await service.segments(
                    projectId: request.http.query["project_id"] == nil ? nil : try request.integer("project_id"))
            }
        }
        let previewNew = RouteGroup([AdminKeyCheck(keys: keys, needs: .read, scope: .bodyProject)]) {
            Route.json("POST", "/api/v1/admin/audience/preview") { request in
                try await service.preview(try JSONBody.decode(AudiencePreviewRequest.self, from: request.http))
            }
        }
        let create = RouteGroup([AdminKeyCheck(keys: keys, needs: .send, scope: .bodyProject)]) {
            Route.json("POST", p, status: 201) { request in
                try await service.create(
                    try JSONBody.decode(SegmentSpec.self, from: request.http), keyProject: request.keyHolder?.projectId)
            }
        }
        let read = RouteGroup([AdminKeyCheck(keys: keys, needs: .read, scope: .segment)]) {
            Route.json("GET", "\(p)/{segment_id}") { request in
                try await service.segment(id: try request.integer("segment_id"))
            }
            Route.json("GET", "\(p)/{segment_id}/preview") { request in
                try await service.preview(
                    id: try request.integer("segment_id"),
                    sample: request.http.query["sample"] == nil ? nil : Int(try request.integer("sample")))
            }
        }
        let change = RouteGroup([AdminKeyCheck(keys: keys, needs: .send, scope: .segment)]) {
            Route.json("PATCH", "\(p)/{segment_id}") { request in
                try await service.edit(
                    id: try request.integer("segment_id"), try JSONBody.decode(SegmentSpec.self, from: request.http))
            }
            Route.noContent("DELETE", "\(p)/{segment_id}") { request in
                try await service.delete(id: try request.integer("segment_id"))
            }
        }
        return [list, previewNew, create, read, change].flatMap(\.all)
    }
}
