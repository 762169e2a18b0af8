extension SQLiteMigrations {
    /// A profile's identity bindings, as the user's or as the install's anonymous profile, found by
    /// the profile: erasing a profile (``ErasureQueries``) removes them in one statement instead of
    /// reading every installation. They are written only by `identity/change`, not by the writes
    /// every app makes.
    static let identityProfiles = """
        CREATE INDEX identity_installations_profile ON identity_installations (profile_id)
            WHERE profile_id IS NOT NULL;
        CREATE INDEX identity_installations_anonymous ON identity_installations (anonymous_profile_id)
            WHERE anonymous_profile_id IS NOT NULL;
        """
}
