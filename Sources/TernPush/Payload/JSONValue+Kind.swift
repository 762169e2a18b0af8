import TernProtocol

extension JSONValue {
    /// The JSON type's name, for reasons a person reads ("expected a string, got number").
    var kindName: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .int, .double: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }
}
