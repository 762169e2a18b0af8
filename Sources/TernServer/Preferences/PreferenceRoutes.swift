import Foundation
import TernHTTP
import TernProtocol

/// Preferences' and topics' routes: the SDK's (JWT only) in the SDK group, the management API's
/// reads behind the admin key.
struct PreferenceRoutes: Sendable {
    let preferences: PreferenceService
    let authenticator: Authenticator
    let admin: AdminService
    let metrics: Metrics

    /// Every preference and topic route.
    var all: [Route] {
        let service = preferences
        let sdk = RouteGroup(
            [CallerAuthentication(authenticator: authenticator), IdempotencyKeys(metrics: metrics)],
            routes: [
                .sdk(.profilePreferencesGet, EmptyBody.self) { _, caller, _ in
                    Answer(status: 200, body: try JSONCoders.encoder.encode(try await service.get(caller: caller)))
                },
                .sdk(.profilePreferencesSet, PreferencesSetRequest.self) { request, caller, key in
                    try await service.set(request, caller: caller, idempotency: key)
                },
                .sdk(.profileTopicsFollow, TopicRequest.self) { request, caller, key in
                    try await service.follow(request, caller: caller, idempotency: key)
                },
                .sdk(.profileTopicsUnfollow, TopicRequest.self) { request, caller, key in
                    try await service.unfollow(request, caller: caller, idempotency: key)
                },
            ])
        let p = AdminRoutes.prefix
        let profile = RouteGroup([admin.check(.read, .profile)]) {
            Route.json("GET", "\(p)/profiles/{profile_id}/preferences") { request in
                try await service.preferences(profilePublicId: request.parameter("profile_id"))
            }
        }
        let management = RouteGroup([admin.check(.read, .projectPath)]) {
            Route.json("GET", "\(p)/projects/{project_id}/topics") { request in
                try await service.topics(projectId: try request.integer("project_id"))
            }
            Route.json("GET", "\(p)/projects/{project_id}/topics/{topic}/followers") { request in
                let query = request.http.query
                guard let after = Int64(query["after"] ?? "0"), after >= 0 else {
                    throw APIError.badRequest("after: must be the next value of the last page (a non-negative integer)")
                }
                guard let limit = Int(query["limit"] ?? "100"), (1...1000).contains(limit) else {
                    throw APIError.badRequest("limit: must be an integer from 1 to 1000")
                }
                return try await service.followers(
                    projectId: try request.integer("project_id"), topic: request.parameter("topic"), after: after,
                    limit: limit)
            }
        }
        return sdk.all + profile.all + management.all
    }
}
