extension SQLiteMigrations {
    /// Saved message templates: a name unique in its project and the content a message takes (the
    /// request's content fields as a JSON object, `MessageContent`). Messages made from one keep
    /// their merged content, so nothing refers to a template's row.
    static let messageTemplates = """
        CREATE TABLE templates (
            id INTEGER PRIMARY KEY,
            project_id INTEGER NOT NULL REFERENCES projects (id),
            name TEXT NOT NULL,
            content TEXT NOT NULL,
            created_at INTEGER NOT NULL,
            updated_at INTEGER NOT NULL,
            UNIQUE (project_id, name)
        );
        """
}
