import Foundation

/// Management-API keys (kept as digests) and the audit log.
public protocol KeyQueries {
    /// Stores a key by its secret's digest; returns it with its id.
    func insertKey(
        digest: String, projectId: Int64?, role: KeyRole, name: String, createdBy: Int64?, now: Int64
    ) throws -> APIKeyRecord
    /// The unrevoked key whose secret has this digest, or whose previous secret has it and is still
    /// in its grace period at `now`.
    func key(digest: String, now: Int64) throws -> APIKeyRecord?
    /// A key by id, revoked or not.
    func key(id: Int64) throws -> APIKeyRecord?
    /// Every key (nil) or a project's, oldest first; server keys only when `projectId` is nil.
    func keys(projectId: Int64?) throws -> [APIKeyRecord]
    /// Gives the key a new secret; the old one works until `previousExpiresAt` (nil: not at all).
    func rotateKey(id: Int64, digest: String, previousExpiresAt: Int64?, now: Int64) throws
    /// Revokes the key; false when it was revoked already or does not exist.
    func revokeKey(id: Int64, now: Int64) throws -> Bool
    /// Appends an entry to the audit log (its id is given by the store); returns the id.
    func appendAudit(_ entry: AuditEntry) throws -> Int64
    /// Audit entries newest first, with ids below `beforeId` (0: from the newest); a project's, or all.
    func audit(projectId: Int64?, beforeId: Int64, limit: Int) throws -> [AuditEntry]
}
