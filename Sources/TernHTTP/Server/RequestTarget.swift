import Foundation

/// The request target's path and query, decoded: `%XX` escapes in both, `+` as a space in the
/// query; an escape that is not two hexadecimal digits stays as sent.
enum RequestTarget {
    /// The path (nil when its decoded bytes are not UTF-8) and the query's arguments (an argument
    /// without `=` maps to `""`, a repeated one's values are joined with `", "`).
    static func decode(_ target: [UInt8]) -> (path: String?, query: [String: String]) {
        var target = target[...]
        // absolute-form (RFC 9112 §3.2.2): the path starts after the authority. Every client but a
        // proxy's sends origin-form, which starts with "/": the search for "://" is skipped then.
        if target.first != UInt8(ascii: "/"), let scheme = target.firstRange(of: Array("://".utf8)),
            target[..<scheme.lowerBound].allSatisfy(isLetter)
        {
            let rest = target[scheme.upperBound...]
            target = rest.firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") }.map { rest[$0...] } ?? []
            if target.first != UInt8(ascii: "/") { target = ([UInt8(ascii: "/")] + target)[...] }
        }
        let mark = target.firstIndex(of: UInt8(ascii: "?"))
        let pathBytes = percentDecoded(mark.map { target[..<$0] } ?? target, plusIsSpace: false)
        let path = UTF8Text.string(pathBytes)
        var query: [String: String] = [:]
        if let mark {
            for argument in target[(mark + 1)...].split(separator: UInt8(ascii: "&")) {
                let equals = argument.firstIndex(of: UInt8(ascii: "="))
                let key = text(percentDecoded(equals.map { argument[..<$0] } ?? argument, plusIsSpace: true))
                let value = equals.map { text(percentDecoded(argument[($0 + 1)...], plusIsSpace: true)) } ?? ""
                if let existing = query[key] {
                    query[key] = existing + ", " + value
                } else {
                    query[key] = value
                }
            }
        }
        return (path, query)
    }

    private static func text(_ bytes: [UInt8]) -> String {
        String(decoding: bytes, as: UTF8.self)
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
    }

    static func percentDecoded(_ bytes: ArraySlice<UInt8>, plusIsSpace: Bool) -> [UInt8] {
        guard bytes.contains(where: { $0 == UInt8(ascii: "%") || (plusIsSpace && $0 == UInt8(ascii: "+")) }) else {
            return Array(bytes)
        }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%"), index + 2 < bytes.endIndex, let high = hex(bytes[index + 1]),
                let low = hex(bytes[index + 2])
            {
                out.append(high << 4 | low)
                index += 3
                continue
            }
            out.append(plusIsSpace && byte == UInt8(ascii: "+") ? 0x20 : byte)
            index += 1
        }
        return out
    }

    private static func hex(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: byte - 0x30
        case 0x41...0x46: byte - 0x41 + 10
        case 0x61...0x66: byte - 0x61 + 10
        default: nil
        }
    }
}
