import Foundation
import TernProtocol
import TernServer

extension SendOptions {
    /// `--trigger GOAL` with its options; nil without it (its options refused then). Each of the
    /// events that names what must change takes its own pair, required with it and refused with
    /// any other: `--trigger-tag`/`--trigger-tag-value` with `$tag_set`,
    /// `--trigger-field`/`--trigger-field-value` with `$field_set`, `--trigger-campaign` with
    /// `$inapp_clicked` and `$inapp_shown`, and its `--trigger-button` with `$inapp_clicked` only.
    static func trigger(_ arguments: Arguments) throws(CommandError) -> MessageTrigger? {
        let inApp = [MessageTrigger.inAppClicked, MessageTrigger.inAppShown]
        let pairs: [(events: [String], valueEvents: [String], noun: String, name: String, value: String)] = [
            (
                [MessageTrigger.tagSet], [MessageTrigger.tagSet], "the tag whose new value", "trigger-tag",
                "trigger-tag-value"
            ),
            (
                [MessageTrigger.fieldSet], [MessageTrigger.fieldSet], "the profile field whose new value",
                "trigger-field", "trigger-field-value"
            ),
            (
                inApp, [MessageTrigger.inAppClicked], "the in-app campaign (its id) whose event", "trigger-campaign",
                "trigger-button"
            ),
        ]
        guard let goal = arguments.value("trigger") else {
            let options =
                ["trigger-delay", "trigger-cancel", "trigger-reentry-minutes"] + pairs.flatMap { [$0.name, $0.value] }
            if let stray = options.first(where: arguments.has) { throw CommandError("--\(stray) goes with --trigger") }
            return nil
        }
        func named(_ events: [String]) -> String { events.map { "'\($0)'" }.joined(separator: " or ") }
        for pair in pairs {
            if pair.events.contains(goal), !arguments.has(pair.name) {
                let what = pair.name == "trigger-campaign" ? "ID" : "NAME"
                throw CommandError("--trigger '\(goal)' needs --\(pair.name) \(what): \(pair.noun) sends it")
            }
            if !pair.events.contains(goal), arguments.has(pair.name) {
                throw CommandError("--\(pair.name) goes with --trigger \(named(pair.events))")
            }
            if !pair.valueEvents.contains(goal), arguments.has(pair.value) {
                throw CommandError("--\(pair.value) goes with --trigger \(named(pair.valueEvents))")
            }
        }
        return MessageTrigger(
            eventName: goal, delayMinutes: try arguments.int("trigger-delay"),
            cancelEventName: arguments.value("trigger-cancel"),
            reentryAfterMinutes: try arguments.int("trigger-reentry-minutes"), tag: arguments.value("trigger-tag"),
            tagValue: arguments.value("trigger-tag-value"), field: arguments.value("trigger-field"),
            fieldValue: arguments.value("trigger-field-value").map(jsonValue),
            campaignId: arguments.value("trigger-campaign"), button: arguments.value("trigger-button"))
    }
}
