import Foundation
import TernProtocol
import TernServer

/// `tern segments …`: saved audiences (create, list, show, edit, delete) and their previews.
extension AdminCommand {
    static let segmentOptions = [
        OptionSpec(
            "where", "FILTER",
            "segments: the filter as text, e.g. 'session_count >= 3 and app_version >= 2.0' (tern segments --help)"),
        OptionSpec("filter", "JSON", "segments: the filter as the API's JSON"),
        OptionSpec("sample", "N", "segments preview: how many subscriptions to show (0 to 100, default 20)"),
    ]

    /// The call for a segments command; nil for another topic.
    static func segmentPlan(_ topic: String, _ verb: String, _ arguments: Arguments) throws -> Call? {
        guard topic == "segments" else { return nil }
        func arg(_ index: Int, _ name: String) throws -> String { try arguments.position(index, name) }
        let project = try arguments.int("project")
        let resource = try arguments.int("resource")
        switch verb {
        case "list":
            return Call(method: "GET", path: "/segments", query: project.map { ["project_id": String($0)] } ?? [:])
        case "show": return Call(method: "GET", path: "/segments/\(try arg(1, "SEGMENT"))")
        case "delete": return Call(method: "DELETE", path: "/segments/\(try arg(1, "SEGMENT"))")
        case "create":
            guard let project else { throw CommandError("segments create needs --project ID") }
            guard let name = arguments.value("name") else { throw CommandError("segments create needs --name NAME") }
            guard let filter = try filter(arguments) else {
                throw CommandError("segments create needs --where FILTER or --filter JSON")
            }
            return Call(
                method: "POST", path: "/segments",
                body: try body(["project_id": .int(Int64(project)), "name": .string(name), "filter": filter], resource))
        case "edit":
            var changes: [String: JSONValue] = [:]
            if let name = arguments.value("name") { changes["name"] = .string(name) }
            if let filter = try filter(arguments) { changes["filter"] = filter }
            guard !changes.isEmpty || resource != nil else {
                throw CommandError("segments edit SEGMENT needs --name, --where, --filter or --resource")
            }
            return Call(method: "PATCH", path: "/segments/\(try arg(1, "SEGMENT"))", body: try body(changes, resource))
        case "preview":
            let sample = arguments.value("sample")
            if arguments.positionals.count > 1 {
                return Call(
                    method: "GET", path: "/segments/\(try arg(1, "SEGMENT"))/preview",
                    query: sample.map { ["sample": $0] } ?? [:])
            }
            guard let project, let filter = try filter(arguments) else {
                throw CommandError("segments preview takes SEGMENT, or --project ID with --where or --filter")
            }
            var fields: [String: JSONValue] = ["project_id": .int(Int64(project)), "filter": filter]
            if let sample {
                guard let size = Int64(sample) else { throw CommandError("--sample must be a number") }
                fields["sample"] = .int(size)
            }
            return Call(method: "POST", path: "/audience/preview", body: try body(fields, resource))
        default:
            throw CommandError("segments: list, show, create, edit, delete or preview, not \(verb)")
        }
    }

    /// `--where` (text) or `--filter` (JSON), as the API's JSON; nil when neither is given.
    static func filter(_ arguments: Arguments) throws -> JSONValue? {
        if let text = arguments.value("where") {
            guard arguments.value("filter") == nil else { throw CommandError("give --where or --filter, not both") }
            do { return try FilterText.parse(text) } catch { throw CommandError("--where: \(error.reason)") }
        }
        guard let json = arguments.value("filter") else { return nil }
        guard let value = try? JSONDecoder().decode(JSONValue.self, from: Data(json.utf8)), case .object = value else {
            throw CommandError(
                "--filter must be a JSON object, like '{\"field\": \"session_count\", \"op\": \">=\", \"value\": 3}'")
        }
        return value
    }

    static func body(_ fields: [String: JSONValue], _ resource: Int?) throws -> Data {
        var fields = fields
        if let resource { fields["resource_id"] = .int(Int64(resource)) }
        return try JSONEncoder().encode(JSONValue.object(fields))
    }
}
