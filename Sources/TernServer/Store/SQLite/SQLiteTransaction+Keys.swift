import Foundation
import TernSQLite

extension SQLiteTransaction {
    func insertKey(
        digest: String, projectId: Int64?, role: KeyRole, name: String, createdBy: Int64?, now: Int64
    ) throws -> APIKeyRecord {
        try database.run(
            "INSERT INTO admin_keys (digest, project_id, role, name, created_by, created_at) VALUES (?, ?, ?, ?, ?, ?)",
            [digest, projectId, role.rawValue, name, createdBy, now])
        return APIKeyRecord(
            id: database.lastInsertRowID, projectId: projectId, role: role, name: name, createdAt: now,
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
            UPDATE admin_keys SET previous_digest = CASE WHEN ? IS NULL THEN NULL ELSE digest END,
            previous_expires_at = ?, digest = ?, rotated_at = ? WHERE id = ?
            """, [previousExpiresAt, previousExpiresAt, digest, now, id])
    }

    func revokeKey(id: Int64, now: Int64) throws -> Bool {
        try database.run(
            "UPDATE admin_keys SET revoked_at = ?, previous_digest = NULL WHERE id = ? AND revoked_at IS NULL",
            [now, id]) > 0
    }

    func appendAudit(_ entry: AuditEntry) throws -> Int64 {
        try database.run(
            """
            INSERT INTO audit_log (at, key_id, project_id, action, target, status, request_id, detail)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                entry.at, entry.keyId, entry.projectId, entry.action, entry.target, Int64(entry.status),
                entry.requestId, entry.detail,
            ])
        return database.lastInsertRowID
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

/// The key and audit columns, read alike from both backends' rows.
enum KeyRows {
    static let columns =
        "id, project_id, role, name, created_at, created_by, rotated_at, previous_expires_at, revoked_at"
    static let auditColumns = "id, at, key_id, project_id, action, target, status, request_id, detail"

    static func key(_ int: (Int) -> Int64?, _ string: (Int) -> String?) -> APIKeyRecord {
        APIKeyRecord(
            id: int(0) ?? 0, projectId: int(1), role: KeyRole(rawValue: string(2) ?? "") ?? .read,
            name: string(3) ?? "", createdAt: int(4) ?? 0, createdBy: int(5), rotatedAt: int(6),
            previousExpiresAt: int(7), revokedAt: int(8))
    }

    static func audit(_ int: (Int) -> Int64?, _ string: (Int) -> String?) -> AuditEntry {
        AuditEntry(
            id: int(0) ?? 0, at: int(1) ?? 0, keyId: int(2), projectId: int(3), action: string(4) ?? "",
            target: string(5) ?? "", status: Int(int(6) ?? 0), requestId: string(7) ?? "", detail: string(8) ?? "")
    }
}
