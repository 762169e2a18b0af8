import Foundation
import TernSQLite

extension SQLTransaction {
    private static var keyColumns: String {
        "id, project_id, role, name, created_at, created_by, rotated_at, previous_expires_at, revoked_at"
    }

    private static var auditColumns: String {
        "id, at, key_id, project_id, action, target, status, request_id, detail"
    }

    func insertKey(
        digest: String, projectId: Int64?, role: KeyRole, name: String, createdBy: Int64?, now: Int64
    ) throws -> APIKeyRecord {
        let id = try insert(
            "INSERT INTO admin_keys (digest, project_id, role, name, created_by, created_at) VALUES (?, ?, ?, ?, ?, ?)",
            [digest, projectId, role.rawValue, name, createdBy, now])
        return APIKeyRecord(id: id, projectId: projectId, role: role, name: name, createdAt: now, createdBy: createdBy)
    }

    func key(digest: String, now: Int64) throws -> APIKeyRecord? {
        try database.queryFirst(
            """
            SELECT \(Self.keyColumns) FROM admin_keys WHERE revoked_at IS NULL
            AND (digest = ? OR (previous_digest = ? AND previous_expires_at > ?)) ORDER BY id LIMIT 1
            """, [digest, digest, now]
        ).map(Self.keyRecord)
    }

    func key(id: Int64) throws -> APIKeyRecord? {
        try database.queryFirst("SELECT \(Self.keyColumns) FROM admin_keys WHERE id = ?", [id]).map(Self.keyRecord)
    }

    func keys(projectId: Int64?) throws -> [APIKeyRecord] {
        let rows =
            if let projectId {
                try database.query(
                    "SELECT \(Self.keyColumns) FROM admin_keys WHERE project_id = ? ORDER BY id", [projectId])
            } else {
                try database.query("SELECT \(Self.keyColumns) FROM admin_keys ORDER BY id", [])
            }
        return rows.map(Self.keyRecord)
    }

    /// The cast gives the parameter a type: PostgreSQL cannot tell one from `? IS NULL` alone.
    func rotateKey(id: Int64, digest: String, previousExpiresAt: Int64?, now: Int64) throws {
        try database.run(
            """
            UPDATE admin_keys SET previous_digest = CASE WHEN CAST(? AS BIGINT) IS NULL THEN NULL ELSE digest END,
            previous_expires_at = ?, digest = ?, rotated_at = ? WHERE id = ?
            """, [previousExpiresAt, previousExpiresAt, digest, now, id])
    }

    func revokeKey(id: Int64, now: Int64) throws -> Bool {
        try database.run(
            "UPDATE admin_keys SET revoked_at = ?, previous_digest = NULL WHERE id = ? AND revoked_at IS NULL",
            [now, id]) > 0
    }

    func appendAudit(_ entry: AuditEntry) throws -> Int64 {
        try insert(
            """
            INSERT INTO audit_log (at, key_id, project_id, action, target, status, request_id, detail)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                entry.at, entry.keyId, entry.projectId, entry.action, entry.target, Int64(entry.status),
                entry.requestId, entry.detail,
            ])
    }

    func audit(projectId: Int64?, beforeId: Int64, limit: Int) throws -> [AuditEntry] {
        let before = beforeId > 0 ? beforeId : Int64.max
        let rows =
            if let projectId {
                try database.query(
                    "SELECT \(Self.auditColumns) FROM audit_log WHERE project_id = ? AND id < ? ORDER BY id DESC LIMIT ?",
                    [projectId, before, Int64(limit)])
            } else {
                try database.query(
                    "SELECT \(Self.auditColumns) FROM audit_log WHERE id < ? ORDER BY id DESC LIMIT ?",
                    [before, Int64(limit)])
            }
        return rows.map(Self.auditEntry)
    }

    private static func keyRecord(_ row: Connection.Row) -> APIKeyRecord {
        APIKeyRecord(
            id: row.requiredInt(0), projectId: row.int(1), role: KeyRole(rawValue: row.requiredString(2)) ?? .read,
            name: row.requiredString(3), createdAt: row.requiredInt(4), createdBy: row.int(5), rotatedAt: row.int(6),
            previousExpiresAt: row.int(7), revokedAt: row.int(8))
    }

    private static func auditEntry(_ row: Connection.Row) -> AuditEntry {
        AuditEntry(
            id: row.requiredInt(0), at: row.requiredInt(1), keyId: row.int(2), projectId: row.int(3),
            action: row.requiredString(4), target: row.requiredString(5), status: Int(row.requiredInt(6)),
            requestId: row.requiredString(7), detail: row.requiredString(8))
    }
}
