import Foundation
import TernSQLite

extension PostgresTransaction {
    func insertKey(
        digest: String, projectId: Int64?, role: KeyRole, name: String, createdBy: Int64?, now: Int64
    ) throws -> APIKeyRecord {
        let id = try insert(
            "INSERT INTO admin_keys (digest, project_id, role, name, created_by, created_at) VALUES (?, ?, ?, ?, ?, ?)",
            [digest, projectId, role.rawValue, name, createdBy, now])
        return APIKeyRecord(
            id: id, projectId: projectId, role: role, name: name, createdAt: now,
            createdBy: createdBy)
    }

    func key(digest: String, now: Int64) throws -> APIKeyRecord? {
        try database.queryFirst(
            """
            SELECT \(KeyRows.columns) FROM admin_keys WHERE revoked_at IS NULL
            AND (digest = ? OR (previous_digest = ? AND previous_expires_at > ?)) ORDER BY id LIMIT 1
            """, [digest, digest, now]
        ).map { KeyRows.key($0.int, $0.string) }
    }

    func key(id: Int64) throws -> APIKeyRecord? {
        try database.queryFirst("SELECT \(KeyRows.columns) FROM admin_keys WHERE id = ?", [id]).map {
            KeyRows.key($0.int, $0.string)
        }
    }

    func keys(projectId: Int64?) throws -> [APIKeyRecord] {
        let rows =
            if let projectId {
                try database.query(
                    "SELECT \(KeyRows.columns) FROM admin_keys WHERE project_id = ? ORDER BY id", [projectId])
            } else {
                try database.query("SELECT \(KeyRows.columns) FROM admin_keys ORDER BY id")
            }
        return rows.map { KeyRows.key($0.int, $0.string) }
    }

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
                    "SELECT \(KeyRows.auditColumns) FROM audit_log WHERE project_id = ? AND id < ? ORDER BY id DESC LIMIT ?",
                    [projectId, before, Int64(limit)])
            } else {
                try database.query(
                    "SELECT \(KeyRows.auditColumns) FROM audit_log WHERE id < ? ORDER BY id DESC LIMIT ?",
                    [before, Int64(limit)])
            }
        return rows.map { KeyRows.audit($0.int, $0.string) }
    }
}
