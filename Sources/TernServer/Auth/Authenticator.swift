import Foundation
import TernProtocol

/// Establishes the ``Caller`` of an SDK request from its `X-Tern-RToken` and `Authorization` headers.
///
/// - rToken only: the resource it names, that resource's project and profile database, no identity.
/// - JWT (with or without an rToken): the key is picked by the header's `kid` among the project's keys
///   (the rToken's project, else any project with that kid); `aud` must be the project's audience;
///   `matching` names the database and the identity. The resource is the rToken's, else
///   `matching.resource_id`, else the project's only push resource.
struct Authenticator: Sendable {
    let store: any Store
    let verifier: any TokenVerifier
    let clock: @Sendable () -> Date
    let cache = CallerCache()

    init(store: any Store, verifier: any TokenVerifier, clock: @escaping @Sendable () -> Date = { Date() }) {
        self.store = store
        self.verifier = verifier
        self.clock = clock
    }

    func caller(rToken: String?, authorization: String?) async throws -> Caller {
        let rToken = rToken.flatMap { $0.isEmpty ? nil : $0 }
        guard let authorization, !authorization.isEmpty else {
            guard let rToken else {
                throw APIError.unauthorized(
                    "no credentials: send \(Wire.rTokenHeader): <rToken> or \(Wire.authorizationHeader): Bearer <JWT>")
            }
            return try await rTokenCaller(rToken)
        }
        return try await jwtCaller(try Self.bearer(authorization), rToken: rToken)
    }

    private func rTokenCaller(_ rToken: String) async throws -> Caller {
        if let cached = cache.caller(for: rToken) { return cached }
        let caller = try await store.read { tx in
            let resource = try Self.resource(tx, rToken: rToken)
            guard let project = try tx.project(id: resource.projectId),
                let database = try tx.database(id: resource.dbId)
            else { throw StoreError.backend("resource \(resource.id) points at a missing project or database") }
            return Caller(project: project, resource: resource, database: database, identity: nil)
        }
        cache.remember(caller, for: rToken)
        return caller
    }

    private func jwtCaller(_ token: String, rToken: String?) async throws -> Caller {
        let header = try verifier.header(of: token)
        guard let algorithm = header["alg"], algorithm.lowercased() != "none" else {
            throw APIError.unauthorized("JWT rejected: alg none (or no alg) is not accepted; sign the token")
        }
        guard let kid = header["kid"], !kid.isEmpty else {
            throw APIError.unauthorized("JWT rejected: the header has no kid; name the key the token was signed with")
        }
        let (resource, candidates) = try await store.read { tx in
            let resource = try rToken.map { try Self.resource(tx, rToken: $0) }
            let keys = try tx.jwtKeys(kid: kid).filter { resource == nil || $0.projectId == resource?.projectId }
            let candidates = try keys.compactMap { key in try tx.project(id: key.projectId).map { (key, $0) } }
            return (resource, candidates)
        }
        guard !candidates.isEmpty else {
            let scope = resource.map { "project \($0.projectId)" } ?? "any project"
            throw APIError.unauthorized(
                "JWT rejected: no key with kid \"\(kid.prefix(64))\" in \(scope); add it (tern jwt-keys add)")
        }
        var failure = APIError.unauthorized("JWT rejected")
        for (key, project) in candidates {
            do {
                let claims = try verifier.verify(token, key: key, audience: project.audience, now: clock())
                return try await caller(
                    matching: try JWTMatching.parse(claims: claims), project: project, resource: resource)
            } catch let error as APIError where candidates.count > 1 && error.status == 401 {
                failure = error
            }
        }
        throw failure
    }

    private func caller(matching: JWTMatching, project: Project, resource: Resource?) async throws -> Caller {
        try await store.read { tx in
            guard let database = try tx.database(id: matching.dbId), database.projectId == project.id else {
                throw APIError.unauthorized(
                    "JWT rejected: matching.db_id \(matching.dbId) is not a profile database of project \(project.id)")
            }
            let chosen: Resource
            if let resource {
                chosen = resource
            } else if let resourceId = matching.resourceId {
                guard let found = try tx.resource(id: resourceId), found.projectId == project.id else {
                    throw APIError.unauthorized(
                        "JWT rejected: matching.resource_id \(resourceId) is not a resource of project \(project.id)")
                }
                chosen = found
            } else {
                let pushes = try tx.resources(projectId: project.id).filter(\.isPush)
                guard pushes.count == 1, let only = pushes.first else {
                    throw APIError.badRequest(
                        "project \(project.id) has \(pushes.count) push resources: send \(Wire.rTokenHeader) or put "
                            + "resource_id in the JWT's matching claim")
                }
                chosen = only
            }
            return Caller(project: project, resource: chosen, database: database, identity: matching.identity)
        }
    }

    private static func resource(_ tx: any StoreTransaction, rToken: String) throws -> Resource {
        guard let resource = try tx.resource(rToken: rToken) else {
            throw APIError.unauthorized("\(Wire.rTokenHeader) is not known: no resource has this rToken")
        }
        return resource
    }

    static func bearer(_ authorization: String) throws(APIError) -> String {
        let parts = authorization.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer", !parts[1].isEmpty else {
            throw .unauthorized("\(Wire.authorizationHeader) must be \"Bearer <JWT>\"")
        }
        return String(parts[1]).trimmingCharacters(in: .whitespaces)
    }
}
