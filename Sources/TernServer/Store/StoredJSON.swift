import Foundation
import TernHTTP
import TernProtocol

/// A fast JSON codec for `JSONValue`, used for what the store keeps as JSON text (fields,
/// categories). Canonical output: object keys sorted, no spaces, so equal values give equal text.
enum StoredJSON {
    static func encode(_ value: JSONValue) -> String {
        // Built as UTF-8 bytes, made a String once: appended to a String scalar by scalar, the JSON of
        // a new subscription's fields and categories took 8 % of its insert on the store's writer.
        var out: [UInt8] = []
        out.reserveCapacity(128)
        append(value, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    static func encode(_ object: [String: JSONValue]) -> String { encode(.object(object)) }

    static func encode(_ flags: [String: Bool]) -> String { encode(.object(flags.mapValues(JSONValue.bool))) }

    /// Parses JSON text; nil when it is not valid JSON.
    static func decode(_ text: String) -> JSONValue? {
        var text = text
        return text.withUTF8 { decode(utf8: $0) }
    }

    /// Parses UTF-8 JSON bytes (a request body); nil when they are not valid JSON.
    static func decode(utf8 bytes: UnsafeBufferPointer<UInt8>) -> JSONValue? {
        var parser = Parser(bytes: bytes)
        guard let value = parser.value(depth: 0) else { return .none }
        parser.skipSpace()
        // Not `? value : nil`: JSONValue takes the nil literal, which would make trailing text `.null`.
        guard parser.index == bytes.count else { return .none }
        return value
    }

    private static func append(_ value: JSONValue, to out: inout [UInt8]) {
        switch value {
        case .null: out += "null".utf8
        case .bool(let flag): out += (flag ? "true" : "false").utf8
        case .int(let number): out += String(number).utf8
        case .double(let number): out += (number.isFinite ? String(number) : "null").utf8
        case .string(let text): JSONText.appendString(text, to: &out)
        case .array(let values):
            out.append(UInt8(ascii: "["))
            for (index, element) in values.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                append(element, to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let object):
            out.append(UInt8(ascii: "{"))
            for (index, key) in object.keys.sorted().enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                JSONText.appendString(key, to: &out)
                out.append(UInt8(ascii: ":"))
                append(object[key] ?? .null, to: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    private struct Parser {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0

        init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

        mutating func skipSpace() {
            while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
        }

        mutating func value(depth: Int) -> JSONValue? {
            guard depth < 512 else { return nil }
            skipSpace()
            guard index < bytes.count else { return nil }
            switch bytes[index] {
            case UInt8(ascii: "{"): return object(depth: depth)
            case UInt8(ascii: "["): return array(depth: depth)
            case UInt8(ascii: "\""): return string().map(JSONValue.string)
            case UInt8(ascii: "t"): return literal("true", .bool(true))
            case UInt8(ascii: "f"): return literal("false", .bool(false))
            case UInt8(ascii: "n"): return literal("null", .null)
            default: return number()
            }
        }

        mutating func literal(_ word: StaticString, _ value: JSONValue) -> JSONValue? {
            let count = word.utf8CodeUnitCount
            guard index + count <= bytes.count else { return nil }
            for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] { return nil }
            index += count
            return value
        }

        mutating func object(depth: Int) -> JSONValue? {
            index += 1
            var object: [String: JSONValue] = [:]
            skipSpace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
                index += 1
                return .object(object)
            }
            while true {
                skipSpace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: "\""), let key = string() else { return nil }
                skipSpace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { return nil }
                index += 1
                guard let element = value(depth: depth + 1) else { return nil }
                object[key] = element
                skipSpace()
                guard index < bytes.count else { return nil }
                if bytes[index] == UInt8(ascii: ",") {
                    index += 1
                } else if bytes[index] == UInt8(ascii: "}") {
                    index += 1
                    return .object(object)
                } else {
                    return nil
                }
            }
        }

        mutating func array(depth: Int) -> JSONValue? {
            index += 1
            var values: [JSONValue] = []
            skipSpace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
                index += 1
                return .array(values)
            }
            while true {
                guard let element = value(depth: depth + 1) else { return nil }
                values.append(element)
                skipSpace()
                guard index < bytes.count else { return nil }
                if bytes[index] == UInt8(ascii: ",") {
                    index += 1
                } else if bytes[index] == UInt8(ascii: "]") {
                    index += 1
                    return .array(values)
                } else {
                    return nil
                }
            }
        }

        mutating func string() -> String? {
            index += 1
            var scalars = String.UnicodeScalarView()
            var start = index
            func flush(_ end: Int, into scalars: inout String.UnicodeScalarView) -> Bool {
                guard end > start else { return true }
                guard let chunk = UTF8Text.string(UnsafeBufferPointer(rebasing: bytes[start..<end]))
                else { return false }
                scalars.append(contentsOf: chunk.unicodeScalars)
                return true
            }
            while index < bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: "\"") {
                    // Most strings hold no escape: one validation of their bytes, no scalar
                    // appends (those were a twentieth of a subscribe's request path).
                    if scalars.isEmpty {
                        let whole = UTF8Text.string(UnsafeBufferPointer(rebasing: bytes[start..<index]))
                        index += 1
                        return whole
                    }
                    guard flush(index, into: &scalars) else { return nil }
                    index += 1
                    return String(scalars)
                }
                if byte < 0x20 { return nil }
                if byte == UInt8(ascii: "\\") {
                    guard flush(index, into: &scalars), index + 1 < bytes.count else { return nil }
                    index += 1
                    switch bytes[index] {
                    case UInt8(ascii: "\""): scalars.append("\"")
                    case UInt8(ascii: "\\"): scalars.append("\\")
                    case UInt8(ascii: "/"): scalars.append("/")
                    case UInt8(ascii: "b"): scalars.append("\u{08}")
                    case UInt8(ascii: "f"): scalars.append("\u{0C}")
                    case UInt8(ascii: "n"): scalars.append("\n")
                    case UInt8(ascii: "r"): scalars.append("\r")
                    case UInt8(ascii: "t"): scalars.append("\t")
                    case UInt8(ascii: "u"):
                        guard let scalar = unicodeEscape() else { return nil }
                        scalars.append(scalar)
                        start = index
                        continue
                    default: return nil
                    }
                    index += 1
                    start = index
                    continue
                }
                index += 1
            }
            return nil
        }

        /// After `\u`: one code unit, or a surrogate pair. Leaves `index` after the escape.
        mutating func unicodeEscape() -> Unicode.Scalar? {
            guard let high = hex4(at: index + 1) else { return nil }
            index += 5
            if (0xD800..<0xDC00).contains(high) {
                guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"),
                    bytes[index + 1] == UInt8(ascii: "u"),
                    let low = hex4(at: index + 2), (0xDC00..<0xE000).contains(low)
                else { return nil }
                index += 6
                return Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
            }
            return Unicode.Scalar(high)
        }

        func hex4(at start: Int) -> UInt32? {
            guard start + 4 <= bytes.count else { return nil }
            var value: UInt32 = 0
            for offset in 0..<4 {
                let byte = bytes[start + offset]
                let digit: UInt32
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
                default: return nil
                }
                value = value * 16 + digit
            }
            return value
        }

        mutating func number() -> JSONValue? {
            let start = index
            var integral = true
            if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
            let digitsStart = index
            while index < bytes.count {
                let byte = bytes[index]
                if (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) {
                    index += 1
                } else if byte == UInt8(ascii: ".") || byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E")
                    || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-")
                {
                    integral = false
                    index += 1
                } else {
                    break
                }
            }
            guard index > digitsStart else { return nil }
            let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
            if integral, let number = Int64(text) { return .int(number) }
            guard let number = Double(text), number.isFinite else { return nil }
            return .double(number)
        }
    }
}
