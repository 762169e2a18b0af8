import Foundation

/// Action-field operations on profile fields, sent inside `profile_fields` as
/// `{"name": {"action": "incr", "value": 1}}`.
public enum ActionFieldOperation: String, Codable, Sendable, CaseIterable {
    /// Sets the field to the operand.
    case set
    /// Removes the field (no operand).
    case unset
    /// Adds the operand (a number) to the field; a missing field counts as 0.
    case incr
    /// Appends the operand (or each element of a list) to the list the field holds.
    case add
    /// Removes the operand (or each element of a list) from the list the field holds.
    case delete
    /// Merges the operand (an object) into the object the field holds, creating it when absent.
    case upsert

    /// The key of the object that marks a profile field value as an operation.
    public static let actionKey = "action"
    /// The operand's key.
    public static let valueKey = "value"

    /// Reads an operation out of a profile field value, nil when the value is a plain value.
    public static func parse(_ value: JSONValue) -> (ActionFieldOperation, JSONValue?)? {
        guard case .object(let object) = value, let name = object[actionKey]?.stringValue,
            let operation = ActionFieldOperation(rawValue: name),
            Set(object.keys).isSubset(of: [actionKey, valueKey])
        else { return nil }
        return (operation, object[valueKey])
    }

    /// The profile field value that carries this operation.
    public func encoded(_ operand: JSONValue?) -> JSONValue {
        var object: [String: JSONValue] = [Self.actionKey: .string(rawValue)]
        if let operand { object[Self.valueKey] = operand }
        return .object(object)
    }
}
