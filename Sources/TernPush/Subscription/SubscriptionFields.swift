import Foundation

/// Validates the fields an app passes to `subscribe`, `suspend` and `unsubscribe`. Pure.
enum SubscriptionFields {
    enum Problem: Error, Equatable {
        /// A custom field is an object or a list, or JSON cannot carry it.
        case customFieldNotScalar(String)
        /// A profile field JSON cannot carry (a `Date`, a class).
        case profileFieldNotJSON(String)
    }

    /// Profile fields: any JSON (objects, lists, action-field operations).
    static func profile(_ fields: [String: Any?]?) -> Result<[String: JSONValue]?, Problem> {
        guard let fields else { return .success(nil) }
        var out: [String: JSONValue] = [:]
        for key in fields.keys.sorted() {
            guard let value = JSONValue(any: fields[key] ?? nil) else { return .failure(.profileFieldNotJSON(key)) }
            out[key] = value
        }
        return .success(out)
    }

    /// Custom (subscription) fields: scalars only.
    static func custom(_ fields: [String: Any?]?) -> Result<[String: JSONValue]?, Problem> {
        guard let fields else { return .success(nil) }
        var out: [String: JSONValue] = [:]
        for key in fields.keys.sorted() {
            guard let value = JSONValue(any: fields[key] ?? nil), value.isScalar else {
                return .failure(.customFieldNotScalar(key))
            }
            out[key] = value
        }
        return .success(out)
    }
}
