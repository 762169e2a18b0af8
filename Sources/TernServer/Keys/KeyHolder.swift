import Foundation

/// Who a management request is: the key it was made with (by id), the project that key reaches
/// (nil for a server key) and its role. Established by ``AdminKeyCheck``.
struct KeyHolder: Sendable, Equatable {
    let keyId: Int64
    let projectId: Int64?
    let role: KeyRole

    init(_ key: APIKeyRecord) {
        keyId = key.id
        projectId = key.projectId
        role = key.role
    }

    var isServer: Bool { role == .server }

    /// The project a list should show: a project key's own, whatever was asked; else what was asked.
    func reach(_ asked: Int64?) -> Int64? { projectId ?? asked }
}

/// What a management route acts on, so ``AdminKeyCheck`` can tell whose it is before the handler runs.
enum ScopeTarget: Sendable {
    /// Nothing in particular (the handler limits a list to the key's project).
    case none
    case project(Int64)
    case resource(Int64)
    case message(String)
    case profile(String)
    case database(Int64)
    case key(Int64)
    /// An in-app campaign, by the id in its path.
    case campaign(String)
    /// A segment, by the id in its path.
    case segment(Int64)
    /// A message template, by the id in its path.
    case template(Int64)

    /// How to name it in a refusal.
    var label: String {
        switch self {
        case .none: "it"
        case .project(let id): "project \(id)"
        case .resource(let id): "resource \(id)"
        case .message(let id): "message \(id.prefix(64))"
        case .profile(let id): "profile \(id.prefix(64))"
        case .database(let id): "database \(id)"
        case .key(let id): "key \(id)"
        case .campaign(let id): "campaign \(id.prefix(32))"
        case .segment(let id): "segment \(id)"
        case .template(let id): "template \(id)"
        }
    }
}

/// Whose a ``ScopeTarget`` is.
enum TargetOwner: Sendable, Equatable {
    /// The route names nothing by id (the handler limits itself to the key's project).
    case unnamed
    /// Named, but there is no such thing.
    case missing
    /// A server key: server-wide.
    case server
    case project(Int64)
}
