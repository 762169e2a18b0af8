import Foundation

/// What a management-API key may do. A project key has one of `read`, `send` or `full` and reaches
/// only its project; the server key (`server`, the operator's, the one `bootstrap.json` holds)
/// reaches everything and alone creates projects and server keys.
public enum KeyRole: String, Codable, Sendable, CaseIterable {
    /// Reads the project: its resources, profiles, messages and their statistics.
    case read
    /// Reads, and sends messages.
    case send
    /// Everything in its project: configuration, credentials, JWT keys and its project's keys.
    case full
    /// The operator's key: every project and what is server-wide.
    case server

    /// The roles a project key can have.
    static let projectRoles: [KeyRole] = [.read, .send, .full]

    /// True when this role includes `permission`.
    func allows(_ permission: Permission) -> Bool {
        switch self {
        case .read: permission == .read
        case .send: permission == .read || permission == .send
        case .full: permission != .server
        case .server: true
        }
    }
}

/// What a route needs of the key that calls it.
enum Permission: String, Sendable {
    /// Reads.
    case read
    /// Sends a message (or asks an audience's size).
    case send
    /// Changes the project's configuration, credentials or keys.
    case configure
    /// Server-wide: projects, server keys.
    case server

    /// The role that is the least a key needs, for the refusal's reason.
    var leastRole: KeyRole {
        switch self {
        case .read: .read
        case .send: .send
        case .configure: .full
        case .server: .server
        }
    }
}

/// A management-API key as stored: its digest (never the secret), its project and role, and what
/// happened to it. A rotated key keeps its id; the previous secret's digest works until
/// `previousExpiresAt`.
public struct APIKeyRecord: Encodable, Sendable, Equatable {
    /// The key's id: what logs and the audit log name instead of the key.
    public var id: Int64
    /// Nil for a server key.
    var projectId: Int64?
    /// What the key may do.
    var role: KeyRole
    /// A label its creator gave it.
    var name: String
    /// Milliseconds since 1970.
    var createdAt: Int64
    /// The key that created it (nil for the bootstrap key).
    var createdBy: Int64?
    /// When its secret was last replaced.
    var rotatedAt: Int64?
    /// Until when the secret before the last rotation still works.
    var previousExpiresAt: Int64?
    /// When it was revoked; a revoked key never works again.
    var revokedAt: Int64?

    enum CodingKeys: String, CodingKey {
        case id, role, name
        case projectId = "project_id"
        case createdAt = "created_at"
        case createdBy = "created_by"
        case rotatedAt = "rotated_at"
        case previousExpiresAt = "previous_expires_at"
        case revokedAt = "revoked_at"
    }
}

/// One line of the audit log: who (a key's id) changed what, when, and how it ended.
public struct AuditEntry: Codable, Sendable, Equatable {
    /// The entry's id (ascending).
    public var id: Int64
    /// Milliseconds since 1970.
    var at: Int64
    /// The key that made the change.
    var keyId: Int64?
    /// The project the change was in; nil for server-wide changes.
    var projectId: Int64?
    /// The method and route, e.g. `POST /api/v1/admin/keys`.
    var action: String
    /// The path the request named, e.g. `/api/v1/admin/keys/7/rotate`.
    var target: String
    /// The HTTP status it was answered with.
    var status: Int
    /// The request's `X-Request-Id`, to find its log line.
    var requestId: String
    /// What the answer said about the thing changed (its id, role, name, fingerprint), never a secret.
    var detail: String

    enum CodingKeys: String, CodingKey {
        case id, at, action, target, status, detail
        case keyId = "key_id"
        case projectId = "project_id"
        case requestId = "request_id"
    }
}
