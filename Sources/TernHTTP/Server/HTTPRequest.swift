import Foundation

/// One HTTP request as the server received it, body complete.
///
/// ```swift
/// if request.method == "POST", request.path == "/api/v1/push/subscribe",
///    request.header("Content-Type") == "application/json" { ... }
/// ```
public struct HTTPRequest: Sendable {
    /// The method as sent: `"GET"`, `"POST"`, ...
    public var method: String
    /// The decoded path without the query, e.g. `"/api/v1/push/subscribe"`.
    public var path: String
    /// The decoded query arguments; an argument without a value maps to `""`.
    public var query: [String: String]
    /// The request's headers, keys lowercased; repeated headers are joined with `", "`.
    public var headers: [String: String]
    /// The body, complete (at most the server's `maxBodyBytes`).
    public var body: Data
    /// The client's IP address as text, when known.
    public var remoteAddress: String?

    public init(
        method: String, path: String, query: [String: String] = [:], headers: [String: String] = [:],
        body: Data = Data(), remoteAddress: String? = nil
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { $0 + ", " + $1 })
        self.body = body
        self.remoteAddress = remoteAddress
    }

    /// The value of the header `name`, compared case-insensitively.
    public func header(_ name: String) -> String? {
        headers[HeaderName.lowercased(name)]
    }
}

/// Header names lowercased on the request path: they are ASCII tokens (RFC 9110), so folding A-Z
/// byte by byte gives what `lowercased()` gives, without its Unicode machinery on every lookup.
enum HeaderName {
    static func lowercased(_ name: String) -> String {
        var name = name
        return name.withUTF8 { lowercased(UnsafeRawBufferPointer($0)) }
    }

    /// True when `name` and `other` are the same header name: ASCII letters compared without their
    /// case, byte by byte (Foundation's `caseInsensitiveCompare` took a percent of every answer).
    static func same(_ name: String, _ other: String) -> Bool {
        name.utf8.elementsEqual(other.utf8) { a, b in
            a == b || (a | 0x20 == b | 0x20 && (a | 0x20) >= 0x61 && (a | 0x20) <= 0x7A)
        }
    }

    /// `text` without the optional whitespace (spaces and tabs, RFC 9110 §5.6.3) at either end, as
    /// a header value's list element is read. Foundation's `trimmingCharacters(in: .whitespaces)`
    /// went through NSString and a Unicode character set: 2 % of every request with a body.
    static func trimmed(_ text: Substring) -> Substring {
        var text = text
        while let first = text.utf8.first, first == 0x20 || first == 0x09 { text = text.dropFirst() }
        while let last = text.utf8.last, last == 0x20 || last == 0x09 { text = text.dropLast() }
        return text
    }

    /// Decodes `bytes` as a header name, lowercased (non-ASCII names go the Unicode way).
    static func lowercased(_ bytes: UnsafeRawBufferPointer) -> String {
        guard bytes.contains(where: { $0 >= 0x41 && $0 <= 0x5A }) else { return String(decoding: bytes, as: UTF8.self) }
        guard !bytes.contains(where: { $0 >= 0x80 }) else { return String(decoding: bytes, as: UTF8.self).lowercased() }
        return String(unsafeUninitializedCapacity: bytes.count) { buffer in
            for (index, byte) in bytes.enumerated() {
                buffer[index] = byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
            }
            return bytes.count
        }
    }
}
