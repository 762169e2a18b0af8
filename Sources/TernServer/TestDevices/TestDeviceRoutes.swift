import Foundation
import TernHTTP
import TernProtocol

/// The management routes of test devices (profiles are marked with
/// `PUT /api/v1/admin/profiles/{profile_id}/test`):
///
/// - `PUT /api/v1/admin/resources/{resource_id}/test-devices`
///   `{"provider": "ios-apns", "subscription_id": "<token>", "is_test": true}`: marks or unmarks a
///   device's push subscriptions in the resource (a `full` key);
/// - `GET /api/v1/admin/test-devices?project_id=N`: the project's test devices (a project key: its
///   own; the server key without `project_id`: every project's).
struct TestDeviceRoutes: Sendable {
    let service: TestDeviceService
    let admin: AdminService

    var all: [Route] {
        let service = service
        let p = AdminRoutes.prefix
        let list = RouteGroup([admin.check(.read, .projectQuery)]) {
            Route.json("GET", "\(p)/test-devices") { request in
                let projectId = request.http.query["project_id"] == nil ? nil : try request.integer("project_id")
                return try await service.list(projectId: projectId)
            }
        }
        let mark = RouteGroup([admin.check(.configure, .resource)]) {
            Route.json("PUT", "\(p)/resources/{resource_id}/test-devices") { request in
                try await service.mark(
                    resourceId: try request.integer("resource_id"),
                    try JSONBody.decode(TestDeviceService.Mark.self, from: request.http))
            }
        }
        return list.all + mark.all
    }
}
