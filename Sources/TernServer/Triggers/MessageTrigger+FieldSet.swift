import Foundation
import TernProtocol

extension MessageTrigger {
    /// The event the server notes itself when a write gives one of a person's profile fields
    /// ``field`` a value it did not have (``fieldValue`` when given): `profile/update`, the
    /// `profile_fields` of `push/subscribe`, `push/suspend`, `push/unsubscribe`, `inapp/subscribe`,
    /// `inapp/unsubscribe`, and of a goal (`event/post` with a JWT). The wait is the person's whose
    /// profile the write changed, for every such message of the project, as a goal's is. A repeat
    /// of the same value, a field removed or set to null, a device import's fields, and the
    /// fields the server writes itself when it makes a profile (a JWT's email or phone, a
    /// log-in's external id) start nothing.
    ///
    /// ```json
    /// {"title": "Welcome to Premium",
    ///  "trigger": {"event_name": "$field_set", "field": "plan", "field_value": "premium", "delay_minutes": 10},
    ///  "audience": {"type": "resource", "resource_id": 1}}
    /// ```
    public static let fieldSet = "$field_set"
}

/// The members of a trigger that name what must change, each pair with its events only:
/// `tag`/`tag_value` with ``MessageTrigger/tagSet``, `field`/`field_value` with
/// ``MessageTrigger/fieldSet``, `campaign_id` with ``MessageTrigger/inAppClicked`` and
/// ``MessageTrigger/inAppShown``, its `button` with ``MessageTrigger/inAppClicked`` only. One check
/// for all: required with their events, refused with any other, and each name and value checked
/// by the rules of what it names.
struct SetChange {
    /// The events the name member goes with, and those the value member goes with (some of them).
    var events: [String]
    var valueEvents: [String]
    /// The members' names: `tag` and `tag_value`.
    var member: String
    var valueMember: String
    /// What the events are, for a reason: "a device's tag is set".
    var meaning: String
    /// What to name when the member is missing, for a reason: "the tag whose new value sends the
    /// message (e.g. "tag": "plan"), and trigger.tag_value if only one value does".
    var required: String
    /// The trigger's name member and whether it has a value member.
    var name: String?
    var hasValue: Bool
    /// Why a name is refused, or nil.
    var nameProblem: (String) -> String?
    /// Why the value is refused, given the name, or nil.
    var valueProblem: (String) -> String?

    /// The pairs, read from `trigger`.
    static func all(of trigger: MessageTrigger) -> [SetChange] {
        [
            SetChange(
                events: [MessageTrigger.tagSet], valueEvents: [MessageTrigger.tagSet], member: "tag",
                valueMember: "tag_value", meaning: "a device's tag is set",
                required: "the tag whose new value sends the message (e.g. \"tag\": \"plan\"), and trigger.tag_value "
                    + "if only one value does",
                name: trigger.tag, hasValue: trigger.tagValue != nil, nameProblem: { TagLimits.problem(key: $0) },
                valueProblem: { tag in trigger.tagValue.flatMap { TagLimits.problem(key: tag, value: $0) } }),
            SetChange(
                events: [MessageTrigger.fieldSet], valueEvents: [MessageTrigger.fieldSet], member: "field",
                valueMember: "field_value", meaning: "a profile field is set",
                required: "the field whose new value sends the message (e.g. \"field\": \"plan\"), and "
                    + "trigger.field_value if only one value does",
                name: trigger.field, hasValue: trigger.fieldValue != nil, nameProblem: fieldNameProblem,
                valueProblem: { _ in trigger.fieldValue.flatMap(fieldValueProblem) }),
            SetChange(
                events: [MessageTrigger.inAppClicked, MessageTrigger.inAppShown],
                valueEvents: [MessageTrigger.inAppClicked], member: "campaign_id", valueMember: "button",
                meaning: "a person sees an in-app campaign or taps its button",
                required: "the in-app campaign whose event sends the message, by its id (e.g. \"campaign_id\": "
                    + "\"12\", tern inapp list shows them), and with \(MessageTrigger.inAppClicked) trigger.button if "
                    + "only one button's tap does",
                name: trigger.campaignId, hasValue: trigger.button != nil, nameProblem: campaignIdProblem,
                valueProblem: { _ in trigger.button.flatMap(buttonProblem) }),
        ]
    }

    /// Checks the pair against the trigger's event, `eventName`.
    func check(_ eventName: String) throws(APIError) {
        guard events.contains(eventName) else {
            if name != nil { throw stray(member, events) }
            if hasValue { throw stray(valueMember, valueEvents) }
            return
        }
        if hasValue, !valueEvents.contains(eventName) { throw stray(valueMember, valueEvents) }
        guard let name else { throw .badRequest("trigger.\(member) is required with \(eventName): name \(required)") }
        if let problem = nameProblem(name) { throw .badRequest("trigger.\(member): \(problem)") }
        if let problem = valueProblem(name) { throw .badRequest("trigger.\(valueMember): \(problem)") }
    }

    /// The refusal of `member` with an event it does not go with.
    private func stray(_ member: String, _ events: [String]) -> APIError {
        let names = events.joined(separator: " or ")
        return .badRequest(
            "trigger.\(member) goes with trigger.event_name \(names) only (a message sent when \(meaning)): "
                + "leave it out, or use \(names)")
    }

    private static func fieldNameProblem(_ name: String) -> String? {
        FieldName.isValid(name)
            ? nil
            : "field name \"\(name.prefix(64))\" is not valid: 1 to 64 letters, digits, _ and -, starting with a "
                + "letter or _ (e.g. plan, _fname)"
    }

    private static func fieldValueProblem(_ value: JSONValue) -> String? {
        value.isScalar
            ? nil
            : "must be a string, a number or true/false (the value the field must take), or left out for any new value"
    }

    private static func campaignIdProblem(_ id: String) -> String? {
        guard let number = Int64(id), number > 0 else {
            return "\"\(id.prefix(64))\" is not an in-app campaign's id: the id the management API gives it (e.g. "
                + "\"12\"; tern inapp list shows them)"
        }
        return nil
    }

    private static func buttonProblem(_ button: String) -> String? {
        let count = button.unicodeScalars.count
        return InAppValidation.buttonIdLength.contains(count)
            ? nil
            : "must be 1 to \(InAppValidation.buttonIdLength.upperBound) characters, not \(count) (the id of one of "
                + "the campaign's buttons)"
    }
}
