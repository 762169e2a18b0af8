import Foundation
import TernServer

extension AdminCommand {
    /// `tern live-activity-channels`: a project's APNs broadcast channels, made, listed, removed and
    /// broadcast on.
    static func liveActivityChannelPlan(_ verb: String, _ arguments: Arguments) throws -> Call {
        func arg(_ index: Int, _ name: String) throws -> String { try arguments.position(index, name) }
        let base = "/projects/\(try arg(1, "PROJECT"))/live-activity-channels"
        let environment = arguments.value("sandbox") == "true" ? "sandbox" : "production"
        switch verb {
        case "list":
            return Call(method: "GET", path: base)
        case "create":
            return Call(
                method: "POST", path: base,
                body: try json([
                    "name": try arg(2, "NAME"), "apns_environment": environment, "storage": arguments.value("storage"),
                ]))
        case "remove":
            return Call(
                method: "DELETE", path: base + "/" + (try arg(2, "NAME")), query: ["apns_environment": environment])
        case "broadcast":
            guard let event = arguments.value("event") else {
                throw CommandError("tern live-activity-channels broadcast PROJECT NAME needs --event update or end")
            }
            var body: [String: Any?] = [
                "event": event, "title": arguments.value("title"), "body": arguments.value("body"),
            ]
            if let state = arguments.value("content-state") {
                guard let object = try? JSONSerialization.jsonObject(with: Data(state.utf8)) as? [String: Any] else {
                    throw CommandError("--content-state must be a JSON object, e.g. '{\"home\": 2, \"away\": 1}'")
                }
                body["content_state"] = object
            }
            for name in ["priority", "ttl"] {
                guard let text = arguments.value(name) else { continue }
                guard let number = Int(text) else { throw CommandError("--\(name) must be a whole number") }
                body[name] = number
            }
            return Call(
                method: "POST", path: base + "/" + (try arg(2, "NAME")) + "/broadcasts",
                query: ["apns_environment": environment], body: try json(body))
        default:
            throw CommandError(
                "tern live-activity-channels takes list PROJECT, create PROJECT NAME, remove PROJECT NAME or "
                    + "broadcast PROJECT NAME --event update|end, not \(verb)")
        }
    }
}
