import Foundation
import TernProtocol

/// Turns a notification's `userInfo` (what the OS hands over, `[AnyHashable: Any]`) into JSON values.
///
/// Numbers arrive as `NSNumber` on Apple platforms, where `1 as? Bool` succeeds: the conversion reads
/// the number's own type code instead, so `"v": 1` stays an integer and `true` stays a boolean.
/// Keys that are not strings and values JSON cannot carry are left out.
///
/// ```swift
/// let json = UserInfoConversion.json(from: request.content.userInfo)
/// ```
public enum UserInfoConversion {
    /// The whole dictionary as JSON values.
    public static func json(from userInfo: [AnyHashable: Any]) -> [String: JSONValue] {
        var object: [String: JSONValue] = [:]
        object.reserveCapacity(userInfo.count)
        for (key, element) in userInfo {
            guard let key = key.base as? String, let converted = value(element) else { continue }
            object[key] = converted
        }
        return object
    }

    /// One value, or nil when JSON cannot carry it.
    public static func value(_ element: Any) -> JSONValue? {
        // Cheapest first: native Swift values say what they are by their dynamic type; casts to
        // Foundation classes (NSNumber, NSNull) are the slow ones, so they come last.
        let dynamicType = type(of: element)
        if dynamicType == String.self, let text = element as? String { return .string(text) }
        if dynamicType == Bool.self, let flag = element as? Bool { return .bool(flag) }
        if dynamicType == Int.self, let number = element as? Int { return .int(Int64(number)) }
        if dynamicType == Int64.self, let number = element as? Int64 { return .int(number) }
        if dynamicType == Double.self, let number = element as? Double {
            return number.isFinite ? .double(number) : nil
        }
        if let dictionary = element as? [String: Any] { return .object(json(fromStringKeyed: dictionary)) }
        if let dictionary = element as? [AnyHashable: Any] { return .object(json(from: dictionary)) }
        if let array = element as? [Any] { return .array(array.compactMap { value($0) }) }
        if let text = element as? String { return .string(text) }
        if let number = element as? NSNumber { return numberValue(number) }
        if element is NSNull { return .null }
        if let json = element as? JSONValue { return json }
        return JSONValue(any: element)
    }

    /// A string-keyed dictionary (what `JSONSerialization` makes) as JSON values.
    public static func json(fromStringKeyed dictionary: [String: Any]) -> [String: JSONValue] {
        var object: [String: JSONValue] = [:]
        object.reserveCapacity(dictionary.count)
        for (key, element) in dictionary {
            if let converted = value(element) { object[key] = converted }
        }
        return object
    }

    private static func numberValue(_ number: NSNumber) -> JSONValue? {
        switch String(cString: number.objCType) {
        case "c", "B":
            // Booleans (`__NSCFBoolean`) report "c"; a char-sized integer other than 0/1 is a number.
            let raw = number.int64Value
            return raw == 0 || raw == 1 ? .bool(raw == 1) : .int(raw)
        case "f", "d":
            let double = number.doubleValue
            return double.isFinite ? .double(double) : nil
        case "Q":
            let unsigned = number.uint64Value
            return unsigned <= UInt64(Int64.max) ? .int(Int64(unsigned)) : .double(Double(unsigned))
        default:
            return .int(number.int64Value)
        }
    }
}
