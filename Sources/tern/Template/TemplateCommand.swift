import Foundation
import TernProtocol
import TernServer

/// `tern template …`: saved message templates through the management API (docs/sending.md,
/// "Templates"), printing its JSON; the content takes `tern send`'s own options.
enum TemplateCommand {
    static let spec = CommandSpec(
        name: "tern template",
        usage: "tern template <subcommand> [arguments] [options]",
        summary: """
            Message templates on a running server: content written once, which tern send --template ID fills in.
              create --project ID --name NAME [content options]   a template (the project key's project by default)
              list [--project ID] [--after ID] [--limit N]        in id order; the next page with --after the last id
              show ID
              edit ID [--name NAME] [content options]              change what the options give
              delete ID                                           messages made from it keep their content
            """,
        sections: [
            (
                "Options",
                [
                    OptionSpec("project", "ID", "create: its project; list: only this project's"),
                    OptionSpec("name", "NAME", "create, edit: its name, unique in the project"),
                    OptionSpec("after", "ID", "list: templates after this id"),
                    OptionSpec("limit", "N", "list: at most N (1 to 1000, default 100)"),
                ]
            ),
            (
                "Content (as tern send takes it)",
                SendOptions.contentOptions + [
                    OptionSpec("relevance-score", "N", "0 to 1: where the notification summary ranks it")
                ]
            ),
            ("Connection", OptionSpec.connection),
        ],
        maxPositionals: 2,
        footer: "Exit status: 0 done, 1 the server refused it, 2 a mistake in the options, 4 no server answered.")

    static func run(_ arguments: [String]) async {
        await AdminCommand.run(arguments, spec: spec, plan: plan)
    }

    static func plan(_ arguments: Arguments) throws -> AdminCommand.Call {
        let verb = try arguments.position(0, "a subcommand")
        func id() throws -> String {
            let text = try arguments.position(1, "ID")
            guard Int64(text) != nil else { throw CommandError("ID must be a template's id (tern template list)") }
            return text
        }
        switch verb {
        case "list":
            var query: [String: String] = [:]
            query["project_id"] = arguments.value("project")
            query["after"] = arguments.value("after")
            query["limit"] = arguments.value("limit")
            return AdminCommand.Call(method: "GET", path: "/templates", query: query)
        case "show": return AdminCommand.Call(method: "GET", path: "/templates/\(try id())")
        case "delete": return AdminCommand.Call(method: "DELETE", path: "/templates/\(try id())")
        case "create":
            guard let name = arguments.value("name") else { throw CommandError("template create needs --name NAME") }
            var fields = try content(arguments)
            fields["name"] = .string(name)
            if let project = try arguments.int("project") { fields["project_id"] = .int(Int64(project)) }
            return AdminCommand.Call(method: "POST", path: "/templates", body: try JSONEncoder().encode(fields))
        case "edit":
            var fields = try content(arguments)
            if let name = arguments.value("name") { fields["name"] = .string(name) }
            guard !fields.isEmpty else { throw CommandError("template edit ID needs --name or a content option") }
            return AdminCommand.Call(
                method: "PATCH", path: "/templates/\(try id())", body: try JSONEncoder().encode(fields))
        default:
            throw CommandError("template: create, list, show, edit or delete, not \(verb)")
        }
    }

    /// The content options as the API's fields (read as `tern send` reads them).
    static func content(_ arguments: Arguments) throws -> [String: JSONValue] {
        var message = MessageRequest(audience: MessageAudience(type: .resource))
        try SendOptions.content(arguments, into: &message)
        message.relevanceScore = try SendOptions.relevanceScore(arguments)
        var fields = try JSONDecoder().decode([String: JSONValue].self, from: JSONEncoder().encode(message))
        fields["audience"] = nil
        return fields
    }
}
