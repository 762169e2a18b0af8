import Foundation

/// A JSON value: what profile fields, subscription fields and payloads carry on the wire.
///
/// ```swift
/// let fields: [String: JSONValue] = ["_os": "IOS", "orders": 3, "vip": true]
/// ```
public enum JSONValue: Codable, Sendable, Hashable {
    /// JSON `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number without a fraction that fits in 64 bits.
    case int(Int64)
    /// Any other number.
    case double(Double)
    /// A string.
    case string(String)
    /// A list of values.
    case array([JSONValue])
    /// An object: string keys to values.
    case object([String: JSONValue])

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .int(value)
        } else if let value = try? container.decode(Double.self) {
            self = .double(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else if let value = try? container.decode([String: JSONValue].self) {
            self = .object(value)
        } else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a JSON value")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .int(let value): try container.encode(value)
        case .double(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    /// True for null, booleans, numbers and strings: the only values custom fields and goal payloads take.
    public var isScalar: Bool {
        switch self {
        case .array, .object: false
        default: true
        }
    }

    /// The value as a Foundation object (`NSNull`, `Bool`, `Int64`, `Double`, `String`, arrays, dictionaries).
    public var anyValue: Any {
        switch self {
        case .null: NSNull()
        case .bool(let value): value
        case .int(let value): Int(truncatingIfNeeded: value)
        case .double(let value): value
        case .string(let value): value
        case .array(let value): value.map(\.anyValue)
        case .object(let value): value.mapValues(\.anyValue)
        }
    }

    /// The string, or nil for any other value.
    public var stringValue: String? {
        if case .string(let value) = self { value } else { nil }
    }

    /// The integer, also for a double without a fraction within 64 bits; nil otherwise.
    public var intValue: Int64? {
        switch self {
        case .int(let value): value
        case .double(let value) where value.rounded() == value && abs(value) < 9.0e18: Int64(value)
        default: nil
        }
    }

    /// The number as a double (integers too); nil for any other value.
    public var doubleValue: Double? {
        switch self {
        case .int(let value): Double(value)
        case .double(let value): value
        default: nil
        }
    }

    /// The boolean, or nil for any other value.
    public var boolValue: Bool? {
        if case .bool(let value) = self { value } else { nil }
    }

    /// The object's members, or nil for any other value.
    public var objectValue: [String: JSONValue]? {
        if case .object(let value) = self { value } else { nil }
    }

    /// The list's elements, or nil for any other value.
    public var arrayValue: [JSONValue]? {
        if case .array(let value) = self { value } else { nil }
    }
}

extension JSONValue {
    /// Converts what an app passes as `[String: Any?]` values into JSON.
    ///
    /// Returns nil for anything JSON cannot carry (a `Date`, a custom class, a non-finite number).
    public init?(any value: Any?) {
        guard let value else {
            self = .null
            return
        }
        switch value {
        case let value as JSONValue: self = value
        case is NSNull: self = .null
        case let value as Bool: self = .bool(value)
        case let value as String: self = .string(value)
        case let value as Int: self = .int(Int64(value))
        case let value as Int8: self = .int(Int64(value))
        case let value as Int16: self = .int(Int64(value))
        case let value as Int32: self = .int(Int64(value))
        case let value as Int64: self = .int(value)
        case let value as UInt: self = value <= UInt(Int64.max) ? .int(Int64(value)) : .double(Double(value))
        case let value as UInt8: self = .int(Int64(value))
        case let value as UInt16: self = .int(Int64(value))
        case let value as UInt32: self = .int(Int64(value))
        case let value as UInt64: self = value <= UInt64(Int64.max) ? .int(Int64(value)) : .double(Double(value))
        case let value as Float:
            guard value.isFinite else { return nil }
            self = .double(Double(value))
        case let value as Double:
            guard value.isFinite else { return nil }
            self = .double(value)
        case let value as [String: Any?]:
            var object: [String: JSONValue] = [:]
            for (key, element) in value {
                guard let converted = JSONValue(any: element) else { return nil }
                object[key] = converted
            }
            self = .object(object)
        case let value as [String: Any]:
            var object: [String: JSONValue] = [:]
            for (key, element) in value {
                guard let converted = JSONValue(any: element) else { return nil }
                object[key] = converted
            }
            self = .object(object)
        case let value as [Any?]:
            var array: [JSONValue] = []
            for element in value {
                guard let converted = JSONValue(any: element) else { return nil }
                array.append(converted)
            }
            self = .array(array)
        case let value as [Any]:
            var array: [JSONValue] = []
            for element in value {
                guard let converted = JSONValue(any: element) else { return nil }
                array.append(converted)
            }
            self = .array(array)
        default:
            return nil
        }
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByNilLiteral, ExpressibleByArrayLiteral,
    ExpressibleByDictionaryLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int64) { self = .int(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(nilLiteral: ()) { self = .null }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}
