import Foundation
import TernSQLite

extension SQLTransaction {
    private static var templateColumns: String { "id, project_id, name, content, created_at, updated_at" }

    func insertTemplate(_ template: TemplateRecord) throws -> TemplateRecord {
        var stored = template
        stored.id = try insert(
            "INSERT INTO templates (project_id, name, content, created_at, updated_at) VALUES (?, ?, ?, ?, ?)",
            [template.projectId, template.name, template.content, template.createdAt, template.updatedAt])
        return stored
    }

    func template(id: Int64) throws -> TemplateRecord? {
        try database.queryFirst("SELECT \(Self.templateColumns) FROM templates WHERE id = ?", [id]).map(Self.template)
    }

    func template(projectId: Int64, name: String) throws -> TemplateRecord? {
        try database.queryFirst(
            "SELECT \(Self.templateColumns) FROM templates WHERE project_id = ? AND name = ?", [projectId, name]
        ).map(Self.template)
    }

    func templates(projectId: Int64?, afterId: Int64, limit: Int) throws -> [TemplateRecord] {
        if let projectId {
            return try database.query(
                "SELECT \(Self.templateColumns) FROM templates WHERE project_id = ? AND id > ? ORDER BY id LIMIT ?",
                [projectId, afterId, Int64(limit)]
            ).map(Self.template)
        }
        return try database.query(
            "SELECT \(Self.templateColumns) FROM templates WHERE id > ? ORDER BY id LIMIT ?", [afterId, Int64(limit)]
        ).map(Self.template)
    }

    func updateTemplate(_ template: TemplateRecord) throws {
        try database.run(
            "UPDATE templates SET name = ?, content = ?, updated_at = ? WHERE id = ?",
            [template.name, template.content, template.updatedAt, template.id])
    }

    func deleteTemplate(id: Int64) throws -> Bool {
        try database.run("DELETE FROM templates WHERE id = ?", [id]) > 0
    }

    private static func template(_ row: Connection.Row) -> TemplateRecord {
        TemplateRecord(
            id: row.requiredInt(0), projectId: row.requiredInt(1), name: row.requiredString(2),
            content: row.requiredString(3), createdAt: row.requiredInt(4), updatedAt: row.requiredInt(5))
    }
}
