import Foundation
import TernProtocol

/// The rules a payload's `buttons` must keep, and the events for breaking them.
///
/// - `buttons` not an array, an entry not an object, a missing or empty `title`, a missing or unknown
///   `action`, a `url` action without an absolute `url`: `errorButtonsKeyMissing`.
/// - an `id` that is not 1–64 of `A–Z a–z 0–9 . _ -`, or repeats an earlier one: `invalidButtonIdentifier`.
/// - entries past the third: `outOfRangeForIdentifier`.
///
/// Only the entry that broke a rule is dropped; the others stay.
enum PushButtonRules {
    private typealias Key = PushButton.Key

    static func buttons(from value: JSONValue?, issues: inout [PushIssue]) -> [PushButton] {
        guard let value, value != .null else { return [] }
        guard let entries = value.arrayValue else {
            let reason = "buttons must be an array, got \(value.kindName)"
            issues.append(
                PushIssue(
                    .errorButtonsKeyMissing, reason: reason,
                    details: ["key": .string(TernPushPayload.Key.buttons.stringValue)]))
            return []
        }
        var buttons: [PushButton] = []
        var seen: Set<String> = []
        for (index, entry) in entries.enumerated() {
            guard index < PushButton.maxCount else {
                let id = entry.objectValue?[Key.id]?.stringValue.map(JSONValue.string) ?? .null
                let reason = "a push has at most \(PushButton.maxCount) buttons; button \(index) is past them"
                issues.append(
                    PushIssue(
                        .outOfRangeForIdentifier, reason: reason,
                        details: [
                            "index": .int(Int64(index)), "identifier": id, "max": .int(Int64(PushButton.maxCount)),
                        ]
                    ))
                continue
            }
            switch button(entry, index: index, seen: seen) {
            case .success(let button):
                seen.insert(button.id)
                buttons.append(button)
            case .failure(let issue):
                issues.append(issue)
            }
        }
        return buttons
    }

    private static func button(_ entry: JSONValue, index: Int, seen: Set<String>) -> Result<PushButton, PushIssue> {
        let at: [String: JSONValue] = [
            "key": .string(TernPushPayload.Key.buttons.stringValue), "index": .int(Int64(index)),
        ]
        func missing(_ reason: String) -> Result<PushButton, PushIssue> {
            .failure(PushIssue(.errorButtonsKeyMissing, reason: "button \(index): \(reason)", details: at))
        }
        guard let object = entry.objectValue else { return missing("must be an object, got \(entry.kindName)") }
        guard let rawId = object[Key.id], rawId != .null else { return missing("'id' is missing") }
        guard let id = rawId.stringValue else {
            return invalidIdentifier(
                "button \(index): 'id' must be a string, got \(rawId.kindName)", identifier: .null, at: at)
        }
        if let problem = PushButton.identifierProblem(id) {
            return invalidIdentifier("button \(index): \(problem)", identifier: .string(id), at: at)
        }
        guard !seen.contains(id) else {
            return invalidIdentifier(
                "button \(index): id '\(id)' is used by an earlier button", identifier: .string(id), at: at)
        }
        guard let title = object[Key.title]?.stringValue,
            !title.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty
        else { return missing("'title' must be a non-empty string") }
        guard let actionName = object[Key.action]?.stringValue else {
            return missing("'action' must be one of open, url, dismiss")
        }
        guard let action = PushButton.Action(rawValue: actionName) else {
            return missing("unknown action '\(actionName)'; expected open, url or dismiss")
        }
        var url: String?
        if action == .url {
            guard let text = object[Key.url]?.stringValue, let parsed = absoluteURL(text) else {
                return missing("a 'url' button needs an absolute 'url'")
            }
            url = parsed.absoluteString
        }
        return .success(PushButton(id: id, title: title, action: action, url: url))
    }

    private static func invalidIdentifier(
        _ reason: String, identifier: JSONValue, at: [String: JSONValue]
    ) -> Result<PushButton, PushIssue> {
        var details = at
        details["identifier"] = identifier
        return .failure(PushIssue(.invalidButtonIdentifier, reason: reason, details: details))
    }

    /// `text` as a URL with a scheme (https, or an app's own scheme for deep links), or nil.
    static func absoluteURL(_ text: String) -> URL? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, let url = URL(string: trimmed), let scheme = url.scheme, !scheme.isEmpty else {
            return nil
        }
        return url
    }
}
