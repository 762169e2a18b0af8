import Foundation

/// One pass over a JSON body that checks its syntax and ``BodyLimits`` before any decoder runs,
/// and refuses the NUL character in every string and key (SQLite and C strings end at NUL, so
/// `"a\u0000b"` would be stored as something else than was sent, and distinct values collide).
struct JSONLimitScanner {
    /// What the scan saw that the decoder's errors do not say well.
    struct Report {
        /// Numbers that are not integers Int64 can hold (the first 32), with where they are: when
        /// the decoder then fails without a path, the one its message quotes names the field.
        var nonIntegers: [(path: String, text: String)] = []
    }

    private enum Frame {
        case object(key: Range<Int>?)
        case array(index: Int)
    }

    let limits: BodyLimits

    /// Throws a 400 that names the limit or the syntax error and where it is.
    @discardableResult
    func check(_ body: Data) throws(APIError) -> Report {
        if body.count > limits.maxBodyBytes {
            throw APIError(
                status: 413,
                reason: "the body is \(body.count) bytes; the limit for this route is \(limits.maxBodyBytes) bytes "
                    + "(Limits in docs/api/openapi.yaml)")
        }
        var report = Report()
        let result: Result<Void, APIError> = body.withUnsafeBytes { raw in
            var cursor = Cursor(bytes: raw, limits: limits)
            do throws(APIError) {
                cursor.skipSpace()
                try cursor.value()
                cursor.skipSpace()
                guard cursor.index == raw.count else { throw cursor.syntax("expected the end of the body") }
                report = cursor.report
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        try result.get()
        return report
    }

    private struct Cursor {
        let bytes: UnsafeRawBufferPointer
        let limits: BodyLimits
        var index = 0
        var path: [Frame] = []
        var report = Report()
        var values = 0

        init(bytes: UnsafeRawBufferPointer, limits: BodyLimits) {
            self.bytes = bytes
            self.limits = limits
        }

        var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

        mutating func skipSpace() {
            while let byte = peek, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { index += 1 }
        }

        mutating func value() throws(APIError) {
            values += 1
            if values > limits.maxValues {
                throw .badRequest(
                    "the body has more than \(limits.maxValues) values (objects, arrays, strings, numbers, booleans "
                        + "and nulls); the limit is \(limits.maxValues) (Limits in docs/api/openapi.yaml)")
            }
            switch peek {
            case UInt8(ascii: "{"): try object()
            case UInt8(ascii: "["): try array()
            case UInt8(ascii: "\""): _ = try string(isKey: false)
            case UInt8(ascii: "t"): try literal("true")
            case UInt8(ascii: "f"): try literal("false")
            case UInt8(ascii: "n"): try literal("null")
            case .some(let byte) where byte == UInt8(ascii: "-") || (0x30...0x39).contains(byte): try number()
            default: throw syntax("expected a value")
            }
        }

        mutating func object() throws(APIError) {
            try enter(.object(key: nil))
            index += 1
            skipSpace()
            var members = 0
            if peek == UInt8(ascii: "}") {
                index += 1
                path.removeLast()
                return
            }
            while true {
                guard peek == UInt8(ascii: "\"") else { throw syntax("expected a key in quotes") }
                path[path.count - 1] = .object(key: nil)
                members += 1
                if members > limits.maxObjectMembers {
                    throw .badRequest(
                        "\(describePath()) has more than \(limits.maxObjectMembers) members; the limit for an object is "
                            + "\(limits.maxObjectMembers) (Limits in docs/api/openapi.yaml)")
                }
                let key = try string(isKey: true)
                path[path.count - 1] = .object(key: key)
                skipSpace()
                guard peek == UInt8(ascii: ":") else { throw syntax("expected ':' after a key") }
                index += 1
                skipSpace()
                try value()
                skipSpace()
                if peek == UInt8(ascii: ",") {
                    index += 1
                    skipSpace()
                    continue
                }
                guard peek == UInt8(ascii: "}") else { throw syntax("expected ',' or '}'") }
                index += 1
                path.removeLast()
                return
            }
        }

        mutating func array() throws(APIError) {
            try enter(.array(index: 0))
            index += 1
            skipSpace()
            if peek == UInt8(ascii: "]") {
                index += 1
                path.removeLast()
                return
            }
            var items = 0
            while true {
                if items == limits.maxArrayItems {
                    path[path.count - 1] = .array(index: -1)
                    throw .badRequest(
                        "\(describePath()) has more than \(limits.maxArrayItems) items; the limit for an array is "
                            + "\(limits.maxArrayItems) (Limits in docs/api/openapi.yaml)")
                }
                path[path.count - 1] = .array(index: items)
                items += 1
                try value()
                skipSpace()
                if peek == UInt8(ascii: ",") {
                    index += 1
                    skipSpace()
                    continue
                }
                guard peek == UInt8(ascii: "]") else { throw syntax("expected ',' or ']'") }
                index += 1
                path.removeLast()
                return
            }
        }

        mutating func enter(_ frame: Frame) throws(APIError) {
            guard path.count < limits.maxDepth else {
                throw .badRequest(
                    "\(describePath()) nests objects and arrays deeper than \(limits.maxDepth) levels; the limit "
                        + "is \(limits.maxDepth) (Limits in docs/api/openapi.yaml)")
            }
            path.append(frame)
        }

        /// Scans a string; returns the range of its bytes between the quotes.
        mutating func string(isKey: Bool) throws(APIError) -> Range<Int> {
            index += 1
            let start = index
            var length = 0
            while true {
                guard let byte = peek else { throw syntax("a string is not closed") }
                if byte == UInt8(ascii: "\"") { break }
                if byte == 0 { throw nul(isKey: isKey, key: start..<index) }
                if byte < 0x20 { throw syntax("a control character must be escaped inside a string") }
                if byte == UInt8(ascii: "\\") {
                    index += 1
                    switch peek {
                    case UInt8(ascii: "u"):
                        guard index + 4 < bytes.count, let code = hex(at: index + 1) else {
                            throw syntax("\\u must be followed by four hex digits")
                        }
                        if code == 0 { throw nul(isKey: isKey, key: start..<index) }
                        // A low surrogate completes the pair its high surrogate counted.
                        length += (0xDC00...0xDFFF).contains(code) ? 0 : 1
                        index += 5
                    case .some(let escaped) where Array("\"\\/bfnrt".utf8).contains(escaped):
                        length += 1
                        index += 1
                    default:
                        throw syntax("unknown escape in a string")
                    }
                } else {
                    // Code points, as JSON Schema's maxLength counts: continuation bytes add none.
                    length += byte & 0xC0 == 0x80 ? 0 : 1
                    index += 1
                }
            }
            let range = start..<index
            index += 1
            if isKey, length > limits.maxKeyCharacters {
                throw .badRequest(
                    "a key in \(describePath()) is \(length) characters long; the limit for a key is \(limits.maxKeyCharacters) "
                        + "characters (Limits in docs/api/openapi.yaml)")
            }
            if !isKey, length > limits.maxStringCharacters {
                throw .badRequest(
                    "\(describePath()) is a string of \(length) characters; the limit for a string is "
                        + "\(limits.maxStringCharacters) characters (Limits in docs/api/openapi.yaml)")
            }
            return range
        }

        mutating func number() throws(APIError) {
            let start = index
            if peek == UInt8(ascii: "-") { index += 1 }
            guard let first = peek, (0x30...0x39).contains(first) else { throw syntax("expected a digit") }
            if first == 0x30 {
                index += 1
            } else {
                while let byte = peek, (0x30...0x39).contains(byte) { index += 1 }
            }
            var integral = true
            if peek == UInt8(ascii: ".") {
                integral = false
                index += 1
                guard let byte = peek, (0x30...0x39).contains(byte) else { throw syntax("expected a digit after '.'") }
                while let byte = peek, (0x30...0x39).contains(byte) { index += 1 }
            }
            if peek == UInt8(ascii: "e") || peek == UInt8(ascii: "E") {
                integral = false
                index += 1
                if peek == UInt8(ascii: "+") || peek == UInt8(ascii: "-") { index += 1 }
                guard let byte = peek, (0x30...0x39).contains(byte) else { throw syntax("expected an exponent") }
                while let byte = peek, (0x30...0x39).contains(byte) { index += 1 }
            }
            if report.nonIntegers.count < 32 {
                let text = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
                if !integral || Int64(text) == nil { report.nonIntegers.append((describePath(quoted: false), text)) }
            }
        }

        mutating func literal(_ word: StaticString) throws(APIError) {
            let count = word.utf8CodeUnitCount
            guard index + count <= bytes.count,
                memcmp(bytes.baseAddress! + index, word.utf8Start, count) == 0
            else { throw syntax("expected a value") }
            index += count
        }

        func hex(at position: Int) -> UInt32? {
            var code: UInt32 = 0
            for offset in 0..<4 {
                guard let digit = Character(UnicodeScalar(bytes[position + offset])).hexDigitValue else { return nil }
                code = code << 4 | UInt32(digit)
            }
            return code
        }

        func syntax(_ expected: String) -> APIError {
            .badRequest("the body is not valid JSON at byte \(index): \(expected); send a JSON object")
        }

        func nul(isKey: Bool, key: Range<Int>) -> APIError {
            if isKey {
                return .badRequest("a key in \(describePath()) contains the NUL character (\\u0000); no key may")
            }
            return .badRequest("\(describePath()) contains the NUL character (\\u0000); no string may")
        }

        /// `field "events[2].message_id"`, or `the body` at the top.
        func describePath(quoted: Bool = true) -> String {
            var text = ""
            for frame in path {
                switch frame {
                case .object(let key?):
                    let name = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[key]), as: UTF8.self)
                    text += (text.isEmpty ? "" : ".") + name.prefix(64)
                case .object(nil): break
                case .array(let position): text += position >= 0 ? "[\(position)]" : ""
                }
            }
            if !quoted { return text }
            return text.isEmpty ? "the body" : "field \"\(text)\""
        }
    }
}
