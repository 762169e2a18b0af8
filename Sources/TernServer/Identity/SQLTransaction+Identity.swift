import Foundation
import TernProtocol
import TernSQLite

/// The identity journal's queries, written once for both backends (their dialects agree here).
extension SQLTransaction {
    func identityPolicy(projectId: Int64) throws -> IdentityPolicy? {
        guard
            let row = try database.queryFirst(
                "SELECT mode, revision FROM identity_policies WHERE project_id = ?", [projectId])
        else { return nil }
        guard let mode = IdentityMode(rawValue: row.requiredString(0)) else {
            throw StoreError.backend("project \(projectId) has an unknown identity mode \(row.requiredString(0))")
        }
        return IdentityPolicy(mode: mode, revision: row.requiredInt(1))
    }

    func setIdentityPolicy(projectId: Int64, _ policy: IdentityPolicy, now: Int64) throws {
        try database.run(
            """
            INSERT INTO identity_policies (project_id, mode, revision, updated_at) VALUES (?, ?, ?, ?)
            ON CONFLICT (project_id) DO UPDATE SET mode = excluded.mode, revision = excluded.revision,
                updated_at = excluded.updated_at
            """, [projectId, policy.mode.rawValue, policy.revision, now])
    }

    func identityInstallation(resourceId: Int64, provider: PushProvider, token: String) throws -> IdentityInstallation?
    {
        guard
            let row = try database.queryFirst(
                """
                SELECT id, binding_id, external_id, mode, profile_id, anonymous_profile_id, version, operation_id,
                    updated_at
                FROM identity_installations WHERE resource_id = ? AND provider = ? AND token = ?
                """, [resourceId, provider.rawValue, token])
        else { return nil }
        let binding = IdentityBinding(
            bindingId: row.requiredString(1), externalId: row.string(2),
            mode: row.string(3).flatMap(IdentityMode.init(rawValue:)), version: row.requiredInt(6),
            operationId: row.string(7), updatedAt: row.requiredInt(8))
        return IdentityInstallation(
            id: row.requiredInt(0), resourceId: resourceId, provider: provider, token: token, binding: binding,
            profileId: row.int(4), anonymousProfileId: row.int(5))
    }

    func insertIdentityInstallation(
        resourceId: Int64, provider: PushProvider, token: String, anonymousProfileId: Int64?, now: Int64
    ) throws {
        try database.run(
            """
            INSERT INTO identity_installations (resource_id, provider, token, binding_id, anonymous_profile_id,
                version, updated_at) VALUES (?, ?, ?, ?, ?, 0, ?)
            ON CONFLICT (resource_id, provider, token) DO NOTHING
            """, [resourceId, provider.rawValue, token, IdentityWire.initialBindingId, anonymousProfileId, now])
    }

    func updateIdentityInstallation(_ installation: IdentityInstallation, expectedBindingId: String) throws -> Bool {
        let binding = installation.binding
        let changed = try database.run(
            """
            UPDATE identity_installations SET binding_id = ?, external_id = ?, mode = ?, profile_id = ?,
                anonymous_profile_id = ?, version = ?, operation_id = ?, updated_at = ?
            WHERE id = ? AND binding_id = ?
            """,
            [
                binding.bindingId, binding.externalId, binding.mode?.rawValue, installation.profileId,
                installation.anonymousProfileId, binding.version, binding.operationId, binding.updatedAt,
                installation.id, expectedBindingId,
            ])
        return changed == 1
    }

    func identityOperation(installationId: Int64, operationId: String) throws -> AppliedIdentityOperation? {
        guard
            let row = try database.queryFirst(
                """
                SELECT fingerprint, status, answer FROM identity_operations
                WHERE installation_id = ? AND operation_id = ?
                """, [installationId, operationId])
        else { return nil }
        return AppliedIdentityOperation(
            fingerprint: row.requiredString(0), status: Int(row.requiredInt(1)),
            answer: Data(row.requiredString(2).utf8))
    }

    func insertIdentityOperation(
        installationId: Int64, operationId: String, _ applied: AppliedIdentityOperation, now: Int64
    ) throws {
        try database.run(
            """
            INSERT INTO identity_operations (installation_id, operation_id, fingerprint, status, answer, created_at)
            VALUES (?, ?, ?, ?, ?, ?)
            """,
            [
                installationId, operationId, applied.fingerprint, applied.status,
                String(decoding: applied.answer, as: UTF8.self), now,
            ])
    }

    func identityOperationCount(installationId: Int64) throws -> Int64 {
        try scalar("SELECT COUNT(*) FROM identity_operations WHERE installation_id = ?", [installationId])
    }
}
