extension PostgresMigrations {
    /// ``SQLiteMigrations/identityProfiles``.
    static let identityProfiles = """
        CREATE INDEX identity_installations_profile ON identity_installations (profile_id)
            WHERE profile_id IS NOT NULL;
        CREATE INDEX identity_installations_anonymous ON identity_installations (anonymous_profile_id)
            WHERE anonymous_profile_id IS NOT NULL;
        """
}
