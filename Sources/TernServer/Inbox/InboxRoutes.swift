import Foundation
import TernHTTP
import TernProtocol

/// The inbox's routes: the SDK's (`inbox/list`, `inbox/read`, `inbox/delete`, `inbox/unread`; JWT
/// only) in the SDK group, and the management API's behind the admin key.
struct InboxRoutes: Sendable {
    let inbox: InboxService
    let authenticator: Authenticator
    let admin: AdminService
    let metrics: Metrics

    /// Every inbox route.
    var all: [Route] {
        let inbox = inbox
        let sdk = RouteGroup(
            [CallerAuthentication(authenticator: authenticator), IdempotencyKeys(metrics: metrics)],
            routes: [
                .sdk(.inboxList, InboxListRequest.self) { request, caller, _ in
                    Answer(
                        status: 200, body: try JSONCoders.encoder.encode(try await inbox.list(request, caller: caller)))
                },
                .sdk(.inboxUnread, EmptyBody.self) { _, caller, _ in
                    Answer(status: 200, body: try JSONCoders.encoder.encode(try await inbox.unread(caller: caller)))
                },
                .sdk(.inboxRead, InboxMessageRequest.self) { request, caller, key in
                    try await inbox.markRead(request, caller: caller, idempotency: key)
                },
                .sdk(.inboxDelete, InboxMessageRequest.self) { request, caller, key in
                    try await inbox.delete(request, caller: caller, idempotency: key)
                },
            ])
        let p = AdminRoutes.prefix
        let put = RouteGroup([admin.check(.send, .own)]) {
            Route.json("POST", "\(p)/inbox", status: 201) { request in
                try await inbox.put(
                    try JSONBody.decode(InboxPutRequest.self, from: request.http),
                    keyProject: try request.holder().projectId)
            }
        }
        let readProfile = RouteGroup([admin.check(.read, .profile)]) {
            Route.json("GET", "\(p)/profiles/{profile_id}/inbox") { request in
                try await inbox.messages(profilePublicId: request.parameter("profile_id"))
            }
        }
        let readSettings = RouteGroup([admin.check(.read, .projectPath)]) {
            Route.json("GET", "\(p)/projects/{project_id}/inbox") { request in
                try await inbox.settings(projectId: try request.integer("project_id"))
            }
        }
        let setSettings = RouteGroup([admin.check(.configure, .projectPath)]) {
            Route.json("PUT", "\(p)/projects/{project_id}/inbox") { request in
                try await inbox.setSettings(
                    projectId: try request.integer("project_id"),
                    try JSONBody.decode(InboxSettings.self, from: request.http))
            }
        }
        return sdk.all + [put, readProfile, readSettings, setSettings].flatMap(\.all)
    }
}

/// A body with nothing in it (`{}`), for SDK reads: an object, whatever its members.
struct EmptyBody: Decodable, Sendable {
    init(from decoder: any Decoder) throws {
        _ = try decoder.container(keyedBy: AnyCodingKey.self)
    }
}
