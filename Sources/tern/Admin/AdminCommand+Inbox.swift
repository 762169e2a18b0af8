import Foundation
import TernServer

/// `tern inbox …`, `tern preferences …`, `tern topics …`: the inbox's, preferences' and topics'
/// management calls.
extension AdminCommand {
    static let inboxTopics: Set<String> = ["inbox", "preferences", "topics"]

    static let inboxOptions = [
        OptionSpec("body", "B", "inbox put: the message's text"),
        OptionSpec("image", "URL", "inbox put: an https image"),
        OptionSpec("link", "URL", "inbox put: what a tap opens"),
        OptionSpec("custom", "JSON", "inbox put: custom data (a JSON object)"),
        OptionSpec("days", "N", "inbox put: days it stays (default: the project's expiry)"),
        OptionSpec("profile", "ID", "inbox put: one profile's inbox"),
        OptionSpec("profiles", "ID,ID,…", "inbox put: several profiles' inboxes"),
        OptionSpec("to-topic", "NAME", "inbox put: the inboxes of the topic's followers"),
        OptionSpec(
            "resource", "ID",
            "inbox put: the people with a push subscription of the resource; segments: limit to this resource"),
    ]

    /// The call for an inbox, preferences or topics command; nil for another topic.
    static func inboxPlan(_ topic: String, _ verb: String, _ arguments: Arguments) throws -> Call? {
        func arg(_ index: Int, _ name: String) throws -> String { try arguments.position(index, name) }
        switch (topic, verb) {
        case ("inbox", "put"):
            var audience: [String: Any] = [:]
            if let id = arguments.value("profile") {
                audience = ["type": "profile", "profile_id": id]
            } else if let ids = arguments.value("profiles") {
                audience = ["type": "profiles", "profile_ids": ids.split(separator: ",").map(String.init)]
            } else if let name = arguments.value("to-topic") {
                audience = ["type": "topic", "topic": name]
            } else if let resource = arguments.value("resource") {
                audience = ["type": "resource", "resource_id": Int(resource) ?? -1]
            } else {
                throw CommandError("say whose inbox: --profile, --profiles, --to-topic or --resource")
            }
            var data: Any?
            if let text = arguments.value("custom") {
                guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else {
                    throw CommandError("--custom must be a JSON object")
                }
                data = object
            }
            return Call(
                method: "POST", path: "/inbox",
                body: try json([
                    "title": arguments.value("title"), "body": arguments.value("body"),
                    "image_url": arguments.value("image"), "link": arguments.value("link"), "data": data,
                    "expires_in_days": try arguments.int("days"),
                    "project_id": arguments.value("project").flatMap { Int($0) }, "audience": audience,
                ]))
        case ("inbox", "list"): return Call(method: "GET", path: "/profiles/\(try arg(1, "PROFILE"))/inbox")
        case ("inbox", "expiry"):
            let project = try arg(1, "PROJECT")
            guard arguments.positionals.count > 2 else {
                return Call(method: "GET", path: "/projects/\(project)/inbox")
            }
            guard let days = Int(try arg(2, "DAYS")) else { throw CommandError("DAYS must be a number") }
            return Call(method: "PUT", path: "/projects/\(project)/inbox", body: try json(["expiry_days": days]))
        case ("preferences", "show"):
            return Call(method: "GET", path: "/profiles/\(try arg(1, "PROFILE"))/preferences")
        case ("topics", "list"): return Call(method: "GET", path: "/projects/\(try arg(1, "PROJECT"))/topics")
        case ("topics", "followers"):
            return Call(
                method: "GET", path: "/projects/\(try arg(1, "PROJECT"))/topics/\(try arg(2, "TOPIC"))/followers",
                query: arguments.value("limit").map { ["limit": $0] } ?? [:])
        default: return nil
        }
    }
}
