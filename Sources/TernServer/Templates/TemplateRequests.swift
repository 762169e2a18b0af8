import Foundation
import TernProtocol

/// `POST /api/v1/admin/templates` (a name and content), `PUT …/templates/{template_id}` (the
/// whole template again: name and content), `PATCH …/templates/{template_id}` (what is given
/// changes; a content field sent as null is removed).
///
/// ```json
/// {"project_id": 1, "name": "Welcome", "title": "Welcome to Acme", "body": "Glad you're here",
///  "buttons": [{"id": "start", "title": "Start", "action": "open"}],
///  "localizations": {"es": {"title": "Bienvenido a Acme"}}}
/// ```
struct TemplateSpec: Decodable, Sendable, Equatable {
    /// The project it belongs to; the key's project when nil.
    var projectId: Int64?
    /// Its name, unique in the project.
    var name: String?
    /// The content fields given (``MessageContent/names``), nulls included (a patch removes those).
    var content: [String: JSONValue]

    /// A template to create, or the changes to one.
    ///
    /// - Parameters:
    ///   - projectId: The project it belongs to; the key's project when nil.
    ///   - name: Its name, unique in the project.
    ///   - content: A message's content fields by their API names (`title`, `body`, `buttons`, ...).
    init(projectId: Int64? = nil, name: String? = nil, content: [String: JSONValue] = [:]) {
        self.projectId = projectId
        self.name = name
        self.content = content
    }

    /// Reads the body as an object; a field that is neither the template's nor content is refused
    /// with what to do, rather than dropped.
    init(from decoder: any Decoder) throws {
        guard case .object(var object) = try JSONValue(from: decoder) else {
            throw APIError.badRequest("the body must be a JSON object: a template's name and content fields")
        }
        switch object.removeValue(forKey: "project_id") {
        case nil, .null?: projectId = nil
        case let value?:
            guard case .int(let id) = value else { throw APIError.badRequest("project_id must be an integer") }
            projectId = id
        }
        switch object.removeValue(forKey: "name") {
        case nil, .null?: name = nil
        case let value?:
            guard case .string(let text) = value else { throw APIError.badRequest("name must be a string") }
            name = text
        }
        for key in object.keys.sorted() where !MessageContent.names.contains(key) {
            throw APIError.badRequest(
                "\(key.prefix(64)) does not go in a template: a template keeps a message's content (title, body, "
                    + "media, buttons, data, ...); give \(key.prefix(64)) with each message that uses it")
        }
        content = object
    }
}

/// A template as the management API shows it: its id, project, name and times, and its content
/// fields beside them, as a message request takes them.
struct TemplateView: Encodable, Sendable, Equatable {
    var id: Int64
    var projectId: Int64
    var name: String
    /// The content fields (``MessageContent/names``) it has.
    var content: [String: JSONValue]
    var createdAt: Int64
    var updatedAt: Int64

    func encode(to encoder: any Encoder) throws {
        typealias Key = AnyCodingKey
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(id, forKey: Key(stringValue: "id"))
        try container.encode(projectId, forKey: Key(stringValue: "project_id"))
        try container.encode(name, forKey: Key(stringValue: "name"))
        for (key, value) in content.sorted(by: { $0.key < $1.key }) {
            try container.encode(value, forKey: Key(stringValue: key))
        }
        try container.encode(createdAt, forKey: Key(stringValue: "created_at"))
        try container.encode(updatedAt, forKey: Key(stringValue: "updated_at"))
    }
}
