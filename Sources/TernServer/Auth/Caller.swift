import Foundation

/// Who is asking, as authentication established it.
///
/// A class, immutable: a request hands its caller from the authentication cache to its route, its
/// service and its write; each copy of a struct retained and released the project's, resource's
/// and database's strings (8 % of an `event/post`'s reference counting).
final class Caller: Sendable, Equatable {
    let project: Project
    /// The resource the request is about: the rToken's, or the one the JWT's matching names.
    let resource: Resource
    /// Where the request's profile lives: the JWT's `matching.db_id`, else the resource's database.
    let database: ProfileDatabase
    /// The profile a JWT names; nil for rToken-only requests.
    let identity: ProfileIdentity?

    init(project: Project, resource: Resource, database: ProfileDatabase, identity: ProfileIdentity?) {
        self.project = project
        self.resource = resource
        self.database = database
        self.identity = identity
    }

    static func == (lhs: Caller, rhs: Caller) -> Bool {
        lhs.project == rhs.project && lhs.resource == rhs.resource && lhs.database == rhs.database
            && lhs.identity == rhs.identity
    }

    /// True when a JWT named the profile.
    var hasJWT: Bool { identity != nil }

    /// What a write of this caller's is about, for ``Store/write(affinity:_:)``: the person a JWT
    /// names (every device of theirs changes the one profile), else the device's push token (its
    /// subscription, and the profile it made); nil when the request names neither.
    func writeAffinity(token: String?) -> String? {
        if identity != nil { return IdempotencyToken.callerScope(self) }
        return token.map { "token\u{0}" + $0 }
    }
}
