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

/// The members of a trigger that name what must change, each pair with one event only:
/// `tag`/`tag_value` with ``MessageTrigger/tagSet``, `field`/`field_value` with
/// ``MessageTrigger/fieldSet``. One check for both: required with their event, refused with any
/// other, and each name and value checked by the rules of what it names.
struct SetChange {
    /// The event the pair goes with.
    var event: String
    /// The members' names: `tag` and `tag_value`.
    var member: String
    var valueMember: String
    /// What the event is, for a reason: "a device's tag is set".
    var meaning: String
    /// A member to copy, for a reason: `"tag": "plan"`.
    var example: String
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
                event: MessageTrigger.tagSet, member: "tag", valueMember: "tag_value", meaning: "a device's tag is set",
                example: "\"tag\": \"plan\"", name: trigger.tag, hasValue: trigger.tagValue != nil,
                nameProblem: { TagLimits.problem(key: $0) },
                valueProblem: { tag in trigger.tagValue.flatMap { TagLimits.problem(key: tag, value: $0) } }),
            SetChange(
                event: MessageTrigger.fieldSet, member: "field", valueMember: "field_value",
                meaning: "a profile field is set", example: "\"field\": \"plan\"", name: trigger.field,
                hasValue: trigger.fieldValue != nil, nameProblem: fieldNameProblem,
                valueProblem: { _ in trigger.fieldValue.flatMap(fieldValueProblem) }),
        ]
    }

    /// Checks the pair against the trigger's `event`.
    func check(_ eventName: String) throws(APIError) {
        guard eventName == event else {
            if let stray = [(member, name != nil), (valueMember, hasValue)].first(where: \.1) {
                throw .badRequest(
                    "trigger.\(stray.0) goes with trigger.event_name \(event) only (a message sent when \(meaning)): "
                        + "leave it out, or use \(event)")
            }
            return
        }
        guard let name else {
            throw .badRequest(
                "trigger.\(member) is required with \(event): name the \(member) whose new value sends the message "
                    + "(e.g. \(example)), and trigger.\(valueMember) if only one value does")
        }
        if let problem = nameProblem(name) { throw .badRequest("trigger.\(member): \(problem)") }
        if let problem = valueProblem(name) { throw .badRequest("trigger.\(valueMember): \(problem)") }
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
}
