import Foundation

/// Provider credentials in the database, so that every node sends with the credential any node was
/// given. Outside ``Store``: a single SQLite node keeps them as files (``CredentialStore``).
extension PostgresStore {
    /// A project's stored credential of `kind` (its JSON) and when it was written, if any.
    func providerCredential(projectId: Int64, kind: String) async throws -> (json: Data, updatedAt: Int64)? {
        try await read { tx in
            try Self.postgres(tx).database.queryFirst(
                "SELECT credential, updated_at FROM provider_credentials WHERE project_id = ? AND kind = ?",
                [projectId, kind]
            ).map { ($0.data(0) ?? Data(), $0.requiredInt(1)) }
        }
    }

    /// Stores the credential, replacing the project's earlier one of `kind`.
    func putProviderCredential(projectId: Int64, kind: String, json: Data, now: Int64) async throws {
        _ = try await write { tx in
            try Self.postgres(tx).database.run(
                """
                INSERT INTO provider_credentials (project_id, kind, credential, updated_at) VALUES (?, ?, ?, ?)
                ON CONFLICT (project_id, kind) DO UPDATE SET credential = excluded.credential,
                    updated_at = excluded.updated_at
                """, [projectId, kind, json, now])
        }
    }

    /// False when there was none.
    func deleteProviderCredential(projectId: Int64, kind: String) async throws -> Bool {
        try await write { tx in
            try Self.postgres(tx).database.run(
                "DELETE FROM provider_credentials WHERE project_id = ? AND kind = ?", [projectId, kind]) > 0
        }
    }

    private static func postgres(_ transaction: any StoreTransaction) throws -> PostgresTransaction {
        guard let transaction = transaction as? PostgresTransaction else {
            throw StoreError.backend("a PostgreSQL query ran on another backend's transaction")
        }
        return transaction
    }
}
