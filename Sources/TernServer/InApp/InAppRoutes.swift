import Foundation
import TernHTTP
import TernProtocol

/// In-app routes: the SDK's `inapp/*` (authenticated, idempotent, the envelope, as `push/*`), the
/// management API under `/api/v1/admin/inapp/` (the admin key), and the public static resources.
struct InAppRoutes: Sendable {
    let service: InAppService
    let authenticator: Authenticator
    let admin: AdminService
    let metrics: Metrics

    var all: [Route] { sdk + management + [staticFiles] }

    /// `inapp/subscribe`, `inapp/unsubscribe`, `inapp/status`, `inapp/placements`, `inapp/event`.
    var sdk: [Route] {
        let service = service
        let changes = [(Endpoint.inAppSubscribe, SubscriptionStatus.subscribed), (.inAppUnsubscribe, .unsubscribed)]
            .map { endpoint, status in
                Route.sdk(endpoint, InAppSubscriptionRequest.self) { request, caller, key in
                    try await service.change(request, to: status, caller: caller, idempotency: key)
                }
            }
        return RouteGroup(
            [CallerAuthentication(authenticator: authenticator), IdempotencyKeys(metrics: metrics)],
            routes: changes + [
                .sdk(.inAppStatus, InAppStatusRequest.self) { request, caller, _ in
                    try await service.status(request, caller: caller)
                },
                .sdk(.inAppPlacements, InAppPlacementsRequest.self) { request, caller, _ in
                    try await service.placements(request, caller: caller)
                },
                .sdk(.inAppEvent, InAppEventRequest.self) { request, caller, key in
                    try await service.event(request, caller: caller, idempotency: key)
                },
            ]
        ).all
    }

    /// The management routes: reading needs a `read` key, changing a campaign a `send` key (a running
    /// campaign reaches devices), the project's caps a `configure` key; a project key reaches its
    /// own project's campaigns only.
    var management: [Route] {
        let service = service
        let keys = admin.keys
        let p = "/api/v1/admin/inapp/campaigns"
        let caps = "/api/v1/admin/projects/{project_id}/inapp-caps"
        let list = RouteGroup([AdminKeyCheck(keys: keys, needs: .read, scope: .projectQuery)]) {
            Route.json("GET", p) { request in
                try await service.campaigns(
                    projectId: request.http.query["project_id"] == nil ? nil : try request.integer("project_id"),
                    resourceId: request.http.query["resource_id"] == nil ? nil : try request.integer("resource_id"),
                    status: request.http.query["status"])
            }
        }
        let create = RouteGroup([AdminKeyCheck(keys: keys, needs: .send, scope: .bodyProject)]) {
            Route.json("POST", p, status: 201) { request in
                try await service.create(try JSONBody.decode(InAppCampaignSpec.self, from: request.http))
            }
        }
        let read = RouteGroup([AdminKeyCheck(keys: keys, needs: .read, scope: .campaign)]) {
            Route.json("GET", "\(p)/{campaign_id}") { request in
                try await service.campaign(request.parameter("campaign_id"))
            }
            Route.json("GET", "\(p)/{campaign_id}/preview") { request in
                try await service.preview(request.parameter("campaign_id"))
            }
            Route.json("GET", "\(p)/{campaign_id}/stats") { request in
                try await service.stats(request.parameter("campaign_id"))
            }
        }
        let transitions = InAppService.Transition.allCases.map { transition in
            Route.json("POST", "\(p)/{campaign_id}/\(transition.rawValue)") { request in
                try await service.transition(request.parameter("campaign_id"), transition)
            }
        }
        let change = RouteGroup(
            [AdminKeyCheck(keys: keys, needs: .send, scope: .campaign)],
            routes: transitions + [
                .json("PATCH", "\(p)/{campaign_id}") { request in
                    try await service.edit(
                        request.parameter("campaign_id"),
                        changes: try JSONBody.decode([String: JSONValue].self, from: request.http))
                },
                .json("PUT", "\(p)/{campaign_id}/static/{name}") { request in
                    try await service.putStatic(
                        request.parameter("campaign_id"), name: request.parameter("name"),
                        contentType: request.http.header("Content-Type"), bytes: request.http.body)
                },
            ])
        let readCaps = RouteGroup([AdminKeyCheck(keys: keys, needs: .read, scope: .projectPath)]) {
            Route.json("GET", caps) { request in
                try await service.projectCaps(projectId: try request.integer("project_id"))
            }
        }
        let setCaps = RouteGroup([AdminKeyCheck(keys: keys, needs: .configure, scope: .projectPath)]) {
            Route.json("PUT", caps) { request in
                try await service.setProjectCaps(
                    projectId: try request.integer("project_id"),
                    try JSONBody.decode(InAppCaps.self, from: request.http))
            }
        }
        return [list, create, read, change, readCaps, setCaps].flatMap(\.all)
    }

    /// `GET /api/v1/inapp/static/{campaign_id}/{name}`: no authentication, a device's web view loads it.
    var staticFiles: Route {
        let service = service
        return Route("GET", InAppWire.staticPathPrefix + "{campaign_id}/{name}") { request in
            let file = try await service.staticFile(request.parameter("campaign_id"), name: request.parameter("name"))
            return HTTPResponse(
                status: 200,
                headers: [
                    ("Content-Type", file.contentType), ("Cache-Control", "public, max-age=3600"),
                    ("X-Content-Type-Options", "nosniff"),
                ], body: file.bytes)
        }
    }
}
