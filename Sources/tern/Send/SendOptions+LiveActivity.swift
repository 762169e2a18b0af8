import Foundation
import TernProtocol
import TernServer

extension SendOptions {
    /// `--live-activity` and the options that go with it, as the API's `live_activity`.
    static func liveActivity(_ arguments: Arguments) throws(CommandError) -> LiveActivityContent? {
        let options = [
            "content-state", "activity-type", "attributes", "stale-date", "dismissal-date", "channel",
        ]
        guard let event = arguments.value("live-activity") else {
            if let stray = options.first(where: arguments.has) {
                throw CommandError("--\(stray) goes with --live-activity")
            }
            return nil
        }
        func object(_ name: String) throws(CommandError) -> [String: JSONValue]? {
            guard let text = arguments.value(name) else { return nil }
            guard case .object(let object) = try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)) else {
                throw CommandError("--\(name) must be a JSON object, like '{\"status\": \"On its way\"}'")
            }
            return object
        }
        let relevance = try relevanceScore(arguments)
        return LiveActivityContent(
            event: event, activityType: arguments.value("activity-type"), contentState: try object("content-state"),
            attributes: try object("attributes"), staleDate: try arguments.int("stale-date").map(Int64.init),
            dismissalDate: try arguments.int("dismissal-date").map(Int64.init), relevanceScore: relevance,
            channel: arguments.value("channel"))
    }

    /// `--relevance-score`: a Live Activity's (0 to 100) or a notification's (0 to 1).
    static func relevanceScore(_ arguments: Arguments) throws(CommandError) -> Double? {
        guard let text = arguments.value("relevance-score") else { return nil }
        guard let value = Double(text) else { throw CommandError("--relevance-score must be a number, not \(text)") }
        return value
    }
}
