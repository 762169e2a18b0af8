import Foundation
import TernCrypto
import TernProtocol

/// Management-API keys: who a secret is (`authorize(secret:target:)`), and creating, listing,
/// rotating and revoking keys. Only digests are stored; a secret is shown once, in the answer that
/// made it. Every change through the API lands in the audit log (`AdminKeyCheck` writes it).
struct KeyService: Sendable {
    let store: any Store
    let clock: @Sendable () -> Int64
    let logger: Logger?

    /// Longest grace period a rotation may give the previous secret: 7 days.
    static let maxGraceSeconds: Int64 = 7 * 86_400

    /// Keys kept in `store`; `logger` hears of audit entries that could not be written.
    init(
        store: any Store, logger: Logger? = nil, clock: @escaping @Sendable () -> Int64 = ServerClock.milliseconds
    ) {
        self.store = store
        self.logger = logger
        self.clock = clock
    }

    /// The key a secret is, if it is one that works now.
    func authenticate(_ secret: String) async throws -> KeyHolder? {
        let digest = AdminKeys.digest(secret)
        let now = clock()
        return try await store.read { try $0.key(digest: digest, now: now) }.map(KeyHolder.init)
    }

    /// The key a secret is and whose `target` is, in one read; nil when the secret is no working key.
    func authorize(secret: String, target: ScopeTarget) async throws -> (KeyHolder, TargetOwner)? {
        let digest = AdminKeys.digest(secret)
        let now = clock()
        return try await store.read { tx in
            guard let key = try tx.key(digest: digest, now: now) else { return nil }
            return (KeyHolder(key), try Self.owner(tx, target))
        }
    }

    static func owner(_ tx: any StoreTransaction, _ target: ScopeTarget) throws -> TargetOwner {
        switch target {
        case .none: return .unnamed
        case .project(let id): return try tx.project(id: id) == nil ? .missing : .project(id)
        case .resource(let id): return try tx.resource(id: id).map { .project($0.projectId) } ?? .missing
        case .message(let id):
            // A push event names `<message id>.<delivery id>`; either form finds the message.
            let message = try tx.message(publicId: id) ?? tx.message(publicId: String(id.prefix { $0 != "." }))
            return message.map { .project($0.projectId) } ?? .missing
        case .database(let id): return try tx.database(id: id).map { .project($0.projectId) } ?? .missing
        case .profile(let id):
            guard let profile = try tx.profile(publicId: id), let database = try tx.database(id: profile.dbId) else {
                return .missing
            }
            return .project(database.projectId)
        case .key(let id):
            guard let key = try tx.key(id: id) else { return .missing }
            return key.projectId.map { .project($0) } ?? .server
        case .campaign(let id):
            guard let id = Int64(id), let campaign = try tx.inAppCampaign(id: id) else { return .missing }
            return .project(campaign.projectId)
        case .segment(let id):
            guard let segment = try tx.segment(id: id) else { return .missing }
            return .project(segment.projectId)
        case .template(let id):
            guard let template = try tx.template(id: id) else { return .missing }
            return .project(template.projectId)
        }
    }

    /// Creates a key; the answer carries its secret, the only time it is shown.
    func create(_ request: KeyRequests.Create, by holder: KeyHolder) async throws -> KeyView {
        let name = request.name ?? "key"
        guard !name.isEmpty, TextLength.fits(name, max: 128) else {
            throw APIError.badRequest("name must be 1 to 128 characters")
        }
        guard let role = KeyRole(rawValue: request.role) else {
            throw APIError.badRequest(
                "role \(request.role.prefix(32)) is not read, send, full or server: read only reads, send also "
                    + "sends messages, full also changes the project's configuration, server is the operator's")
        }
        var projectId = request.projectId
        if role == .server {
            guard holder.isServer else {
                throw APIError(status: 403, reason: "only a server key can create a server key")
            }
            guard projectId == nil else {
                throw APIError.badRequest("a server key belongs to no project: leave project_id out, or pick a role")
            }
        } else {
            if let own = holder.projectId {
                if let asked = projectId, asked != own {
                    throw APIError.notFound(
                        "project \(asked) is not project \(own), the only project this key reaches")
                }
                projectId = own
            }
            guard projectId != nil else {
                throw APIError.badRequest("project_id is required for a \(role.rawValue) key (the project it reaches)")
            }
        }
        let secret = (role == .server ? "ak_" : "tk_") + Digest.randomHex(bytes: 24)
        let digest = AdminKeys.digest(secret)
        let now = clock()
        let target = projectId
        let record = try await store.write { tx in
            if let target { try AdminService.project(tx, target) }
            return try tx.insertKey(
                digest: digest, projectId: target, role: role, name: name, createdBy: holder.keyId, now: now)
        }
        return KeyView(record, secret: secret, now: now)
    }

    /// Keys a holder may see: a project key its project's; the server key all, or a project's.
    func list(projectId: Int64?, by holder: KeyHolder) async throws -> [KeyView] {
        let now = clock()
        let projectId = holder.reach(projectId)
        return try await store.read { tx in
            if let projectId { try AdminService.project(tx, projectId) }
            return try tx.keys(projectId: projectId).map { KeyView($0, now: now) }
        }
    }

    /// A new secret for key `id`; the old one keeps working for `graceSeconds` (0: stops now).
    func rotate(id: Int64, graceSeconds: Int64) async throws -> KeyView {
        guard (0...Self.maxGraceSeconds).contains(graceSeconds) else {
            throw APIError.badRequest(
                "grace_seconds must be 0 to \(Self.maxGraceSeconds) (7 days): how long the old secret keeps working")
        }
        let now = clock()
        let expires = graceSeconds > 0 ? now + graceSeconds * 1000 : nil
        let (secret, record) = try await store.write { tx in
            let key = try Self.live(tx, id)
            let secret = (key.role == .server ? "ak_" : "tk_") + Digest.randomHex(bytes: 24)
            try tx.rotateKey(id: id, digest: AdminKeys.digest(secret), previousExpiresAt: expires, now: now)
            return (secret, try tx.key(id: id) ?? key)
        }
        return KeyView(record, secret: secret, now: now)
    }

    /// Revokes key `id` at once (its previous secret too); the last server key cannot be revoked.
    func revoke(id: Int64) async throws {
        let now = clock()
        try await store.write { tx in
            let key = try Self.live(tx, id)
            if key.role == .server {
                let servers = try tx.keys(projectId: nil).filter { $0.role == .server && $0.revokedAt == nil }
                guard servers.count > 1 else {
                    throw APIError.conflict(
                        "key \(id) is the last server key: create another (tern keys create --role server) first")
                }
            }
            _ = try tx.revokeKey(id: id, now: now)
        }
    }

    /// The audit log, newest first: a project's, or (server key, no project) everything.
    func auditLog(projectId: Int64?, before: Int64, limit: Int, by holder: KeyHolder) async throws -> [AuditEntry] {
        let projectId = holder.reach(projectId)
        return try await store.read { try $0.audit(projectId: projectId, beforeId: before, limit: limit) }
    }

    /// Appends to the audit log.
    func record(_ entry: AuditEntry) async throws {
        _ = try await store.write { try $0.appendAudit(entry) }
    }

    static func live(_ tx: any StoreTransaction, _ id: Int64) throws -> APIKeyRecord {
        guard let key = try tx.key(id: id) else { throw APIError.notFound("key \(id) does not exist") }
        guard key.revokedAt == nil else {
            throw APIError.conflict("key \(id) is revoked: create a new key instead (tern keys create)")
        }
        return key
    }
}

/// A key as the API shows it: the stored `APIKeyRecord` (which holds no digest) with `active`, a
/// grace period only while it runs, and its secret only in the answer that made it.
struct KeyView: Encodable, Sendable {
    var key: APIKeyRecord
    var secret: String?

    init(_ key: APIKeyRecord, secret: String? = nil, now: Int64) {
        self.key = key
        self.key.previousExpiresAt = key.previousExpiresAt.flatMap { $0 > now ? $0 : nil }
        self.secret = secret
    }

    func encode(to encoder: any Encoder) throws {
        try key.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(key.revokedAt == nil, forKey: .active)
        try container.encodeIfPresent(secret, forKey: .secret)
    }

    enum CodingKeys: String, CodingKey { case active, secret }
}

/// The bodies of the key routes.
enum KeyRequests {
    /// `POST /api/v1/admin/keys`.
    struct Create: Decodable, Sendable {
        var projectId: Int64?
        var role: String
        var name: String?

        enum CodingKeys: String, CodingKey {
            case role, name
            case projectId = "project_id"
        }
    }

    /// `POST /api/v1/admin/keys/{key_id}/rotate`.
    struct Rotate: Decodable, Sendable {
        var graceSeconds: Int64? = nil

        enum CodingKeys: String, CodingKey {
            case graceSeconds = "grace_seconds"
        }
    }
}
