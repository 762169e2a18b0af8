import Foundation
import TernProtocol

/// Turns the wire's `profile_fields` (plain values and action-field operations) into changes to a
/// profile's fields. Pure: the service reads the current fields and writes the changes.
///
/// ```swift
/// let changes = try ProfileFieldsEditor.changes(["orders": ["action": "incr", "value": 1]], current: ["orders": 2])
/// // ["orders": 3]
/// ```
enum ProfileFieldsEditor {
    /// Most fields one request may touch.
    static let maxFields = 256

    /// The new value of every touched field; nil means the field is removed.
    static func changes(
        _ requested: [String: JSONValue], current: [String: JSONValue]
    ) throws(APIError) -> [String: JSONValue?] {
        guard requested.count <= maxFields else {
            throw .badRequest("profile_fields has \(requested.count) fields: send at most \(maxFields) at once")
        }
        var changes: [String: JSONValue?] = [:]
        for (name, value) in requested {
            guard FieldName.isValid(name) else { throw .incorrectProfileField(name) }
            changes[name] = try change(name, value, current: current[name])
        }
        return changes
    }

    private static func change(_ name: String, _ value: JSONValue, current: JSONValue?) throws(APIError) -> JSONValue? {
        guard looksLikeOperation(value) else { return value }
        guard let (operation, operand) = ActionFieldOperation.parse(value) else { throw .incorrectProfileField(name) }
        switch operation {
        case .set:
            guard let operand else { throw .incorrectProfileField(name) }
            return operand
        case .unset:
            return nil
        case .incr:
            return try increment(name, current, by: operand ?? .int(1))
        case .add:
            guard let operand else { throw .incorrectProfileField(name) }
            let list = try list(name, current)
            return .array(list + (operand.arrayValue ?? [operand]))
        case .delete:
            guard let operand else { throw .incorrectProfileField(name) }
            let removed = operand.arrayValue ?? [operand]
            return .array(try list(name, current).filter { !removed.contains($0) })
        case .upsert:
            guard case .object(let additions) = operand else { throw .incorrectProfileField(name) }
            switch current {
            case nil, .null?: return .object(additions)
            case .object(let existing)?: return .object(existing.merging(additions) { _, new in new })
            default: throw .incorrectProfileField(name)
            }
        }
    }

    /// An object whose keys are only `action` and `value`, with a string `action`: meant as an operation.
    private static func looksLikeOperation(_ value: JSONValue) -> Bool {
        guard case .object(let object) = value, object[ActionFieldOperation.actionKey]?.stringValue != nil else {
            return false
        }
        return Set(object.keys).isSubset(of: [ActionFieldOperation.actionKey, ActionFieldOperation.valueKey])
    }

    private static func increment(_ name: String, _ current: JSONValue?, by operand: JSONValue) throws(APIError)
        -> JSONValue
    {
        let base: JSONValue = current == nil || current == .null ? .int(0) : current!
        switch (base, operand) {
        case (.int(let a), .int(let b)):
            let (sum, overflow) = a.addingReportingOverflow(b)
            return overflow ? .double(Double(a) + Double(b)) : .int(sum)
        default:
            guard let a = base.doubleValue, let b = operand.doubleValue else { throw .incorrectProfileField(name) }
            guard (a + b).isFinite else { throw .incorrectProfileField(name) }
            return .double(a + b)
        }
    }

    private static func list(_ name: String, _ current: JSONValue?) throws(APIError) -> [JSONValue] {
        switch current {
        case nil, .null?: return []
        case .array(let values)?: return values
        default: throw .incorrectProfileField(name)
        }
    }
}

/// The names fields may have: 1 to 64 characters of letters, digits, `_` and `-`, not starting with `-`
/// or a digit.
enum FieldName {
    static func isValid(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, name.unicodeScalars.count <= 64 else { return false }
        guard first == "_" || isLetter(first) else { return false }
        return name.unicodeScalars.allSatisfy { $0 == "_" || $0 == "-" || isLetter($0) || ("0"..."9").contains($0) }
    }

    private static func isLetter(_ scalar: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar)
    }
}

/// Checks and merges subscription (custom) fields: scalars only, except the system fields the SDK
/// collects with a structure of their own.
enum CustomFields {
    /// System fields whose value is an object of scalars: `_os_ver` is
    /// `{"raw": "18.6.2", "ver": "[\"18.0\", \"6.0\", \"2.0\"]"}` as the reference shows it.
    static let structuredSystemFields: Set<String> = ["_os_ver"]

    static func validate(_ fields: [String: JSONValue]?) throws(APIError) {
        for (name, value) in fields ?? [:] {
            guard FieldName.isValid(name), isAllowed(value, for: name) else { throw .invalidCustomField(name) }
        }
    }

    private static func isAllowed(_ value: JSONValue, for name: String) -> Bool {
        if value.isScalar { return true }
        guard structuredSystemFields.contains(name), let object = value.objectValue else { return false }
        return object.values.allSatisfy(\.isScalar)
    }

    /// `current` with `changes` applied; a null removes the field.
    static func merge(_ current: [String: JSONValue], _ changes: [String: JSONValue]?) -> [String: JSONValue] {
        var merged = current
        for (name, value) in changes ?? [:] {
            if value == .null {
                merged.removeValue(forKey: name)
            } else {
                merged[name] = value
            }
        }
        return merged
    }
}
