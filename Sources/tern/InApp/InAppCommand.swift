import Foundation
import TernServer

/// `tern inapp …`: in-app campaigns through the management API (docs/inapp.md), printing its JSON.
enum InAppCommand {
    static let spec = CommandSpec(
        name: "tern inapp",
        usage: "tern inapp <subcommand> [arguments] [options]",
        summary: """
            In-app campaigns on a running server. Subcommands:
              list [--project ID] [--resource ID] [--status S]   the campaigns, newest first
              create FILE                a campaign from a JSON file (- for stdin; docs/inapp.md), as a draft
              show ID | preview ID | stats ID
              edit ID FILE               replace the fields the JSON file names (null clears one)
              start ID | pause ID | end ID
              caps PROJECT [--per-session N] [--per-day N] [--min-interval SECONDS] [--clear]
                                         the project's caps: shown, or set with the options
              static ID FILE [--name NAME] [--content-type TYPE]
                                         a static resource Tern serves for an HTML campaign
            """,
        sections: [
            (
                "Options",
                [
                    OptionSpec("project", "ID", "list: only this project's"),
                    OptionSpec("resource", "ID", "list: only this resource's"),
                    OptionSpec("status", "S", "list: draft, active, paused or ended"),
                    OptionSpec("per-session", "N", "caps: displays per session"),
                    OptionSpec("per-day", "N", "caps: displays per day"),
                    OptionSpec("min-interval", "SECONDS", "caps: the least time between two displays"),
                    OptionSpec("clear", "caps: remove every cap"),
                    OptionSpec("name", "NAME", "static: the name it is served under (default: the file's)"),
                    OptionSpec("content-type", "TYPE", "static: its type (default: from the name)"),
                ]
            ),
            ("Connection", OptionSpec.connection),
        ],
        maxPositionals: 3,
        footer: "")

    static func run(_ arguments: [String]) async {
        await AdminCommand.run(arguments, spec: spec, plan: plan)
    }

    typealias Call = AdminCommand.Call

    static func plan(_ arguments: Arguments) throws -> Call {
        let verb = try arguments.position(0, "a subcommand")
        func arg(_ index: Int, _ name: String) throws -> String { try arguments.position(index, name) }
        let campaigns = "/inapp/campaigns"
        switch verb {
        case "list":
            var query: [String: String] = [:]
            query["project_id"] = arguments.value("project")
            query["resource_id"] = arguments.value("resource")
            query["status"] = arguments.value("status")
            return Call(method: "GET", path: campaigns, query: query)
        case "create":
            return Call(method: "POST", path: campaigns, body: try jsonFile(try arg(1, "FILE")))
        case "show": return Call(method: "GET", path: "\(campaigns)/\(try arg(1, "ID"))")
        case "preview", "stats": return Call(method: "GET", path: "\(campaigns)/\(try arg(1, "ID"))/\(verb)")
        case "edit":
            return Call(
                method: "PATCH", path: "\(campaigns)/\(try arg(1, "ID"))", body: try jsonFile(try arg(2, "FILE")))
        case "start", "pause", "end": return Call(method: "POST", path: "\(campaigns)/\(try arg(1, "ID"))/\(verb)")
        case "caps":
            let path = "/projects/\(try arg(1, "PROJECT"))/inapp-caps"
            let names = ["per-session": "per_session", "per-day": "per_day", "min-interval": "min_interval_seconds"]
            var caps: [String: Any?] = [:]
            for (option, field) in names {
                if let value = try arguments.int(option) { caps[field] = value }
            }
            guard !caps.isEmpty || arguments.has("clear") else { return Call(method: "GET", path: path) }
            return Call(method: "PUT", path: path, body: try AdminCommand.json(caps))
        case "static":
            let file = try arg(2, "FILE")
            guard let bytes = FileManager.default.contents(atPath: file) else {
                throw CommandError("cannot read \(file)", exitCode: .refused)
            }
            let name = arguments.value("name") ?? URL(fileURLWithPath: file).lastPathComponent
            var headers: [String: String] = ["Content-Type": "application/octet-stream"]
            if let type = arguments.value("content-type") {
                headers["Content-Type"] = type
            } else {
                headers["Content-Type"] = InAppService.contentType(forName: name)
            }
            return Call(
                method: "PUT", path: "\(campaigns)/\(try arg(1, "ID"))/static/\(name)", body: bytes, headers: headers)
        default:
            throw CommandError("unknown command tern inapp \(verb); see tern inapp --help")
        }
    }

    /// A JSON file's bytes (`-` reads standard input), checked to be JSON before it is sent;
    /// `fields` says where the object's fields are told when it is not one.
    static func jsonFile(_ path: String, fields: String = "see docs/inapp.md for a campaign's fields") throws -> Data {
        let data =
            path == "-" ? FileHandle.standardInput.readDataToEndOfFile() : FileManager.default.contents(atPath: path)
        guard let data else { throw CommandError("cannot read \(path)", exitCode: .refused) }
        guard (try? JSONSerialization.jsonObject(with: data)) is [String: Any] else {
            throw CommandError("\(path) is not a JSON object: \(fields)")
        }
        return data
    }
}
