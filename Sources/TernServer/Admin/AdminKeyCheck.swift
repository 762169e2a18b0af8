import Foundation
import TernHTTP
import TernProtocol

/// The middleware of every management route: lets a request through only with
/// `Authorization: Bearer <key>` of a key whose role allows what the route does (`needs`) and
/// whose project is the one the route acts on (`scope`), then writes every change it let through
/// to the audit log. A project key asking for another project's things gets a 404 that says which
/// project it reaches; a key whose role is too small gets a 403 that names the role needed.
struct AdminKeyCheck: RouteMiddleware {
    let keys: KeyService
    let needs: Permission
    let scope: Scope

    /// Where a route's request names what it acts on.
    enum Scope: Sendable {
        /// Server-wide (creating projects): the server key only.
        case server
        /// Nothing by id: the handler limits what it lists or does to the key's project.
        case own
        /// `{project_id}` in the path.
        case projectPath
        /// `?project_id=` (optional): a project key's own project when absent.
        case projectQuery
        /// `{resource_id}` in the path, or else `?resource_id=`.
        case resource
        /// `{message_id}` in the path, or else `?message_id=`.
        case message
        /// `{profile_id}` in the path.
        case profile
        /// `{db_id}` in the path, or else `?db_id=`.
        case database
        /// `{key_id}` in the path.
        case key
        /// `project_id` in the JSON body.
        case bodyProject
        /// `{campaign_id}` in the path (an in-app campaign).
        case campaign
        /// `{segment_id}` in the path.
        case segment
        /// `{template_id}` in the path (a message template).
        case template
    }

    func respond(to request: RouteRequest, next: Route.Handler) async throws -> HTTPResponse {
        guard let authorization = request.http.header(Wire.authorizationHeader) else {
            throw APIError.unauthorized(
                "key missing: send Authorization: Bearer <key> (the server key is in bootstrap.json; "
                    + "project keys come from tern keys create)")
        }
        let named = try target(request)
        guard let secret = try? Authenticator.bearer(authorization),
            let (holder, owner) = try await keys.authorize(secret: secret, target: named)
        else {
            throw APIError.unauthorized(
                "key not recognised: it may be revoked, or replaced by a rotation whose grace period has ended")
        }
        KeyNote.current?.keyId = holder.keyId
        try Self.check(holder, needs: needs, scope: scope, owner: owner, target: named)
        var request = request
        request.keyHolder = holder
        if scope == .projectQuery, let own = holder.projectId, request.http.query["project_id"] == nil {
            request.http.query["project_id"] = String(own)
        }
        let response = try await next(request)
        if needs != .read, (200..<300).contains(response.status) {
            await audit(request, holder: holder, owner: owner, response: response)
        }
        return response
    }

    /// The role, then the project: 403 for a role too small or a server-wide route, 404 for
    /// another project's thing.
    static func check(
        _ holder: KeyHolder, needs: Permission, scope: Scope, owner: TargetOwner, target: ScopeTarget
    ) throws(APIError) {
        guard holder.role.allows(needs) else {
            throw APIError(
                status: 403,
                reason: "key \(holder.keyId) has role \(holder.role.rawValue), which cannot "
                    + Self.verb(needs) + ": this needs a \(needs.leastRole.rawValue) key")
        }
        guard let own = holder.projectId else { return }
        if scope == .server {
            throw APIError(
                status: 403,
                reason: "only a server key can do this (it is server-wide); key \(holder.keyId) "
                    + "is a key of project \(own)")
        }
        switch owner {
        case .unnamed: return
        case .project(let id) where id == own: return
        case .project, .server, .missing:
            // The same answer whether it exists elsewhere or not at all: a key learns nothing of other projects.
            throw APIError.notFound(
                "\(target.label) is not in project \(own), the only project key \(holder.keyId) reaches")
        }
    }

    static func verb(_ permission: Permission) -> String {
        switch permission {
        case .read: "read"
        case .send: "send messages"
        case .configure: "change configuration, credentials or keys"
        case .server: "change what is server-wide"
        }
    }

    /// What the request names, by the route's scope.
    func target(_ request: RouteRequest) throws -> ScopeTarget {
        let query = request.http.query
        switch scope {
        case .server, .own: return .none
        case .projectPath: return .project(try request.integer("project_id"))
        case .projectQuery: return query["project_id"] == nil ? .none : .project(try request.integer("project_id"))
        case .resource:
            return request.parameters["resource_id"] == nil && query["resource_id"] == nil
                ? .none : .resource(try request.integer("resource_id"))
        case .message:
            return (request.parameters["message_id"] ?? query["message_id"]).map { .message($0) } ?? .none
        case .profile: return .profile(request.parameter("profile_id"))
        case .database:
            return request.parameters["db_id"] == nil && query["db_id"] == nil
                ? .none : .database(try request.integer("db_id"))
        case .key: return .key(try request.integer("key_id"))
        case .campaign: return .campaign(request.parameter("campaign_id"))
        case .segment: return .segment(try request.integer("segment_id"))
        case .template: return .template(try request.integer("template_id"))
        case .bodyProject:
            let body = try JSONBody.decode(ProjectField.self, from: request.http)
            return body.projectId.map { .project($0) } ?? .none
        }
    }

    struct ProjectField: Decodable {
        var projectId: Int64?

        enum CodingKeys: String, CodingKey {
            case projectId = "project_id"
        }
    }

    /// One audit entry for a change that succeeded: who, what, where, and what the answer named.
    func audit(_ request: RouteRequest, holder: KeyHolder, owner: TargetOwner, response: HTTPResponse) async {
        var projectId: Int64? = holder.projectId
        if case .project(let id) = owner { projectId = id }
        let named = Self.detail(response.body)
        if projectId == nil, let id = named.projectId { projectId = id }
        let entry = AuditEntry(
            id: 0, at: keys.clock(), keyId: holder.keyId, projectId: projectId,
            action: "\(request.http.method) \(request.routeName)", target: String(request.http.path.prefix(512)),
            status: response.status, requestId: request.requestId, detail: named.text)
        do {
            try await keys.record(entry)
        } catch {
            keys.logger?.error("audit entry not written", ["action": entry.action, "error": "\(error)"])
        }
    }

    /// What an answer's JSON object names about the thing changed, never a secret.
    static func detail(_ body: Data) -> (text: String, projectId: Int64?) {
        guard !body.isEmpty, let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any] else {
            return ("", nil)
        }
        let shown = ["id", "project_id", "role", "name", "kid", "sid", "provider", "fingerprint", "is_test"]
        let parts = shown.compactMap { name in object[name].map { "\(name)=\(String(describing: $0).prefix(128))" } }
        return (parts.joined(separator: " "), (object["project_id"] as? NSNumber)?.int64Value)
    }
}
