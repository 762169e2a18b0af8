import Foundation

/// A saved message template: a name in its project and the content a message takes (its content
/// fields, as the message request names them), as canonical JSON text.
public struct TemplateRecord: Sendable, Equatable {
    /// Its id, which a message names as `template_id`.
    public var id: Int64
    var projectId: Int64
    var name: String
    /// Canonical JSON text of the content object (its keys are the request's content fields).
    var content: String
    var createdAt: Int64
    var updatedAt: Int64
}

/// Message templates, per project with unique names (on both backends).
public protocol TemplateQueries {
    /// Stores a new template (its `id` is ignored); a second one with the same name in the project
    /// is a `StoreError.conflict`.
    func insertTemplate(_ template: TemplateRecord) throws -> TemplateRecord
    /// The template with this id, or nil when there is none.
    func template(id: Int64) throws -> TemplateRecord?
    /// The project's template of this name, or nil when it has none.
    func template(projectId: Int64, name: String) throws -> TemplateRecord?
    /// Up to `limit` templates with an id above `afterId`, in id order: a project's (every project's
    /// when nil).
    func templates(projectId: Int64?, afterId: Int64, limit: Int) throws -> [TemplateRecord]
    /// Saves name, content and `updated_at`; a name another template of the project has is a
    /// `StoreError.conflict`.
    func updateTemplate(_ template: TemplateRecord) throws
    /// Deletes a template; messages made from it keep the content they were made with.
    ///
    /// - Returns: False when there was no such template.
    func deleteTemplate(id: Int64) throws -> Bool
}
