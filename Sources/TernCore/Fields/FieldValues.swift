import Foundation
import TernProtocol

/// Converts what apps pass as `[String: Any?]` (profile fields, goal payloads, matching) into JSON,
/// naming the first field that cannot be converted. Pure; public for Tern's modules.
///
/// ```swift
/// switch FieldValues.json(["_fname": "Ada", "born": Date()]) {
/// case .success(let fields): send(fields)
/// case .failure(let problem): report(problem.reason(in: "profileFields"))
/// }
/// ```
public enum FieldValues {
    /// Why a field was refused.
    public enum Problem: Error, Equatable, Sendable {
        /// JSON cannot carry the value (a `Date`, a custom class, a non-finite number); `type` names it.
        case notJSON(field: String, type: String)
        /// An object or a list where only scalars are allowed.
        case notScalar(field: String)

        /// The field's name.
        public var field: String {
            switch self {
            case .notJSON(let field, _), .notScalar(let field): field
            }
        }

        /// A reason a person can act on, for the parameter `parameter`.
        public func reason(in parameter: String) -> String {
            switch self {
            case .notJSON(let field, let type):
                "\(parameter) field \"\(field)\" holds a \(type), which cannot be encoded as JSON: pass a string, "
                    + "number, boolean or nil (convert dates, e.g. to an ISO 8601 string)"
            case .notScalar(let field):
                "\(parameter) field \"\(field)\" is an object or a list: \(parameter) takes only strings, numbers, "
                    + "booleans and nil"
            }
        }
    }

    /// Any JSON: scalars, objects, lists (profile fields, matching). Nil stays nil.
    public static func json(_ fields: [String: Any?]?) -> Result<[String: JSONValue]?, Problem> {
        convert(fields, scalarsOnly: false)
    }

    /// Scalars only (goal payloads, custom fields). Nil stays nil.
    public static func scalars(_ fields: [String: Any?]?) -> Result<[String: JSONValue]?, Problem> {
        convert(fields, scalarsOnly: true)
    }

    private static func convert(_ fields: [String: Any?]?, scalarsOnly: Bool) -> Result<[String: JSONValue]?, Problem> {
        guard let fields else { return .success(nil) }
        var out: [String: JSONValue] = [:]
        for key in fields.keys.sorted() {
            let raw = fields[key] ?? nil
            guard let value = JSONValue(any: raw) else {
                return .failure(.notJSON(field: key, type: typeName(raw)))
            }
            if scalarsOnly, !value.isScalar { return .failure(.notScalar(field: key)) }
            out[key] = value
        }
        return .success(out)
    }

    /// The name of the innermost value JSON cannot carry (`Date` inside a list names `Date`).
    static func typeName(_ value: Any?) -> String {
        guard let value else { return "nil" }
        switch value {
        case let dictionary as [String: Any?]:
            if let bad = dictionary.values.first(where: { JSONValue(any: $0) == nil }) { return typeName(bad) }
        case let list as [Any?]:
            if let bad = list.first(where: { JSONValue(any: $0) == nil }) { return typeName(bad) }
        default: break
        }
        return String(describing: type(of: value))
    }
}
