import Foundation
import TernProtocol

/// Message templates through the management API: content written once per project under a unique
/// name (create, list by pages, show, replace, change, delete), which a message fills its missing
/// content from (`template_id`, ``MessageService``). Content is checked as a message's would be
/// (``MessageContent/check(_:)``) before it is stored.
///
/// ```swift
/// let templates = TemplateService(store: store)
/// let made = try await templates.create(
///     TemplateSpec(projectId: 1, name: "Welcome", content: ["title": "Welcome", "body": "Glad you're here"]))
/// ```
struct TemplateService: Sendable {
    let store: any Store
    let clock: @Sendable () -> Int64

    /// - Parameters:
    ///   - store: Where templates are kept.
    ///   - clock: The current time in milliseconds since 1970 (tests pass their own).
    init(store: any Store, clock: @escaping @Sendable () -> Int64 = ServerClock.milliseconds) {
        self.store = store
        self.clock = clock
    }

    /// Saves a new template after checking its name and content.
    ///
    /// - Parameters:
    ///   - spec: The template's project, name and content.
    ///   - keyProject: The project of the key that asks, used when `spec` names no project; nil for a
    ///     server-wide key.
    /// - Returns: The saved template as the API shows it.
    /// - Throws: An ``APIError`` naming the field and the reason: a missing project or name, content
    ///   a message would refuse, or a name the project already has (409).
    func create(_ spec: TemplateSpec, keyProject: Int64? = nil) async throws -> TemplateView {
        guard let projectId = spec.projectId ?? keyProject else {
            throw APIError.badRequest("project_id is missing: the project the template belongs to")
        }
        let name = try Validation.name(spec.name)
        let content = try Self.text(MessageContent.check(spec.content))
        let now = clock()
        return try await Self.conflicts(name, projectId) {
            try await store.write { tx in
                try AdminService.project(tx, projectId)
                try Self.unique(tx, projectId: projectId, name: name, except: nil)
                return try Self.view(
                    tx.insertTemplate(
                        TemplateRecord(
                            id: 0, projectId: projectId, name: name, content: content, createdAt: now, updatedAt: now)
                    ))
            }
        }
    }

    /// Up to `limit` templates after id `afterId`, in id order: the project's, or every project's
    /// when nil (a server key).
    func templates(projectId: Int64?, afterId: Int64, limit: Int) async throws -> [TemplateView] {
        try await store.read { tx in
            try tx.templates(projectId: projectId, afterId: afterId, limit: limit).map(Self.view)
        }
    }

    func template(id: Int64) async throws -> TemplateView {
        try await store.read { tx in try Self.view(try Self.find(tx, id)) }
    }

    /// `PUT`: the template's name and content become `spec`'s (a field it leaves out is gone).
    func replace(id: Int64, _ spec: TemplateSpec) async throws -> TemplateView {
        guard spec.name != nil else {
            throw APIError.badRequest(
                "name is missing: PUT sends the whole template (its name and content); PATCH changes some fields")
        }
        return try await change(id: id, spec, replacing: true)
    }

    /// `PATCH` (`replacing` false): what `spec` gives changes, a content field given as null is
    /// removed; `PUT` (true): the content is `spec`'s alone. Either way the result is checked as a
    /// new template's content is.
    func change(id: Int64, _ spec: TemplateSpec, replacing: Bool = false) async throws -> TemplateView {
        let name = try spec.name.map { text throws(APIError) in try Validation.name(text) }
        let now = clock()
        let checked = replacing ? try MessageContent.check(spec.content) : nil
        return try await store.write { tx in
            var template = try Self.find(tx, id)
            if let projectId = spec.projectId, projectId != template.projectId {
                throw APIError.badRequest(
                    "project_id: template \(id) belongs to project \(template.projectId); a template cannot move")
            }
            if let name, name != template.name {
                try Self.unique(tx, projectId: template.projectId, name: name, except: id)
                template.name = name
            }
            var content = try checked ?? Self.content(template)
            if !replacing {
                for (key, value) in spec.content { content[key] = value == .null ? nil : value }
                content = try MessageContent.check(content)
            }
            template.content = Self.text(content)
            template.updatedAt = now
            do {
                try tx.updateTemplate(template)
            } catch StoreError.conflict {
                throw Self.duplicate(template.name, template.projectId, existing: nil)
            }
            return try Self.view(template)
        }
    }

    func delete(id: Int64) async throws {
        guard try await store.write({ try $0.deleteTemplate(id: id) }) else {
            throw APIError.notFound("template \(id) does not exist")
        }
    }

    static func find(_ tx: any StoreTransaction, _ id: Int64) throws -> TemplateRecord {
        guard let template = try tx.template(id: id) else { throw APIError.notFound("template \(id) does not exist") }
        return template
    }

    /// Refuses a name another template of the project has (409 naming it).
    static func unique(_ tx: any StoreTransaction, projectId: Int64, name: String, except id: Int64?) throws {
        if let other = try tx.template(projectId: projectId, name: name), other.id != id {
            throw duplicate(name, projectId, existing: other.id)
        }
    }

    static func duplicate(_ name: String, _ projectId: Int64, existing: Int64?) -> APIError {
        let which = existing.map { " (template \($0))" } ?? ""
        return APIError.conflict(
            "project \(projectId) already has a template named \(name)\(which): pick another name, or change that "
                + "template")
    }

    static func conflicts<T>(_ name: String, _ projectId: Int64, _ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch StoreError.conflict {
            throw duplicate(name, projectId, existing: nil)
        }
    }

    static func text(_ content: [String: JSONValue]) -> String { StoredJSON.encode(.object(content)) }

    static func content(_ template: TemplateRecord) throws -> [String: JSONValue] {
        guard let content = StoredJSON.decode(template.content)?.objectValue else {
            throw StoreError.backend("template \(template.id) has unreadable content")
        }
        return content
    }

    static func view(_ template: TemplateRecord) throws -> TemplateView {
        TemplateView(
            id: template.id, projectId: template.projectId, name: template.name, content: try content(template),
            createdAt: template.createdAt, updatedAt: template.updatedAt)
    }
}
