extension PostgresMigrations {
    /// ``SQLiteMigrations/identityProfiles``: the same statements in both dialects.
    static let identityProfiles = SQLiteMigrations.identityProfiles
}
