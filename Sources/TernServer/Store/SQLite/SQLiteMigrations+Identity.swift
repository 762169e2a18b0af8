import Foundation

extension SQLiteMigrations {
    /// The identity binding journal: each project's identity policy (mode and revision), each
    /// installation's binding (the push subscription of one token on one resource: which person it is
    /// bound to, the binding id a change must name, the profile it moved to and the anonymous one it
    /// came from), and every operation applied, with its answer, so a repeat answers the same.
    static let identityBindings = """
        CREATE TABLE identity_policies (
            project_id INTEGER PRIMARY KEY REFERENCES projects (id),
            mode TEXT NOT NULL,
            revision INTEGER NOT NULL,
            updated_at INTEGER NOT NULL
        );
        CREATE TABLE identity_installations (
            id INTEGER PRIMARY KEY,
            resource_id INTEGER NOT NULL REFERENCES resources (id),
            provider TEXT NOT NULL,
            token TEXT NOT NULL,
            binding_id TEXT NOT NULL,
            external_id TEXT,
            mode TEXT,
            profile_id INTEGER REFERENCES profiles (id) ON DELETE SET NULL,
            anonymous_profile_id INTEGER REFERENCES profiles (id) ON DELETE SET NULL,
            version INTEGER NOT NULL,
            operation_id TEXT,
            updated_at INTEGER NOT NULL,
            UNIQUE (resource_id, provider, token)
        );
        CREATE TABLE identity_operations (
            installation_id INTEGER NOT NULL REFERENCES identity_installations (id) ON DELETE CASCADE,
            operation_id TEXT NOT NULL,
            fingerprint TEXT NOT NULL,
            status INTEGER NOT NULL,
            answer TEXT NOT NULL,
            created_at INTEGER NOT NULL,
            PRIMARY KEY (installation_id, operation_id)
        );
        """
}
