import Foundation
import TernHTTP
import TernProtocol

/// The management-API routes the dashboard needed that did not exist; a project key sees its
/// project's only, and marking a test device needs a `full` key:
///
/// - `GET /api/v1/admin/overview?days=N`: projects, resources, subscription counts, messages per day
/// - `GET /api/v1/admin/messages?before=MESSAGE_ID&limit=N`: the newest messages with their counts, older than `before`;
///   `state`, `kind`, `q`, `created_after` and `created_before` narrow it (``MessageListFilter``)
/// - `POST /api/v1/admin/audience/size` (a message): how many devices it would go to now
/// - `GET /api/v1/admin/test-profiles`: profiles marked as test devices
/// - `GET /api/v1/admin/profiles/{profile_id}/push-events`: its newest 100 delivery and open reports
/// - `PUT /api/v1/admin/profiles/{profile_id}/test` `{"is_test": true}`: mark or unmark one
struct DashboardAPIRoutes: Sendable {
    let service: DashboardService
    let admin: AdminService

    var all: [Route] {
        let service = service
        let p = AdminRoutes.prefix
        let lists = RouteGroup([admin.check(.read, .own)]) {
            Route.json("GET", "\(p)/overview") { request in
                let days = Int(request.http.query["days"] ?? "14") ?? 0
                guard (1...90).contains(days) else { throw APIError.badRequest("days must be an integer from 1 to 90") }
                return try await service.overview(days: days, projectId: try request.holder().projectId)
            }
            Route.json("GET", "\(p)/messages") { request in
                let query = request.http.query
                guard let limit = Int(query["limit"] ?? "50"), (1...200).contains(limit) else {
                    throw APIError.badRequest("limit must be an integer from 1 to 200")
                }
                let filter = try MessageListFilter.parse(query, projectId: try request.holder().projectId)
                return try await service.messages(before: query["before"], limit: limit, filter: filter)
            }
            Route.json("POST", "\(p)/audience/size") { request in
                let message = try JSONBody.decode(MessageRequest.self, from: request.http)
                let devices = try await service.audienceSize(message, keyProject: try request.holder().projectId)
                return DashboardService.AudienceSize(devices: devices)
            }
            Route.json("GET", "\(p)/test-profiles") { request in
                try await service.testProfiles(projectId: try request.holder().projectId)
            }
        }
        let profile = RouteGroup([admin.check(.read, .profile)]) {
            Route.json("GET", "\(p)/profiles/{profile_id}/push-events") { request in
                try await service.pushEvents(profileId: request.parameter("profile_id"), limit: 100)
            }
        }
        let change = RouteGroup([admin.check(.configure, .profile)]) {
            Route.json("PUT", "\(p)/profiles/{profile_id}/test") { request in
                let body = try JSONBody.decode(DashboardService.SetTest.self, from: request.http)
                return try await service.setTest(profileId: request.parameter("profile_id"), isTest: body.isTest)
            }
        }
        return lists.all + profile.all + change.all
    }
}
