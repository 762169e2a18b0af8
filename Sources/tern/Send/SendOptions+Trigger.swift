import Foundation
import TernProtocol
import TernServer

extension SendOptions {
    /// `--trigger GOAL` with its options; nil without it (its options refused then). Each of the
    /// events that names what must change takes its own pair, required with it and refused with
    /// any other: `--trigger-tag`/`--trigger-tag-value` with `$tag_set`,
    /// `--trigger-field`/`--trigger-field-value` with `$field_set`.
    static func trigger(_ arguments: Arguments) throws(CommandError) -> MessageTrigger? {
        let pairs = [
            (MessageTrigger.tagSet, "tag", "trigger-tag", "trigger-tag-value"),
            (MessageTrigger.fieldSet, "profile field", "trigger-field", "trigger-field-value"),
        ]
        guard let goal = arguments.value("trigger") else {
            let options =
                ["trigger-delay", "trigger-cancel", "trigger-reentry-minutes"] + pairs.flatMap { [$0.2, $0.3] }
            if let stray = options.first(where: arguments.has) { throw CommandError("--\(stray) goes with --trigger") }
            return nil
        }
        for (event, noun, name, value) in pairs {
            if goal == event, !arguments.has(name) {
                throw CommandError("--trigger '\(event)' needs --\(name) NAME: the \(noun) whose new value sends it")
            }
            if goal != event, let stray = [name, value].first(where: arguments.has) {
                throw CommandError("--\(stray) goes with --trigger '\(event)'")
            }
        }
        return MessageTrigger(
            eventName: goal, delayMinutes: try arguments.int("trigger-delay"),
            cancelEventName: arguments.value("trigger-cancel"),
            reentryAfterMinutes: try arguments.int("trigger-reentry-minutes"), tag: arguments.value("trigger-tag"),
            tagValue: arguments.value("trigger-tag-value"), field: arguments.value("trigger-field"),
            fieldValue: arguments.value("trigger-field-value").map(jsonValue))
    }
}
