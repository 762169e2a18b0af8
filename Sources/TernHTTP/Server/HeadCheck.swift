import Foundation

/// A request head as read off the wire: the request line's parts and the header fields.
struct RequestHead: Sendable {
    let method: String
    /// The request target's bytes as sent (origin-form, absolute-form or `*`).
    let target: [UInt8]
    /// `"HTTP/1.1"` or `"HTTP/1.0"`.
    let version: String
    /// Names lowercased; repeated fields joined with `", "`.
    let headers: [String: String]
    /// Names that came more than once.
    let repeated: Set<String>
}

/// How a request's body is delimited (RFC 9112 §6.3).
enum BodyFraming: Equatable {
    case none
    case length(Int)
    case chunked
}

/// Reads a request head from the bytes a connection has received, with RFC 9112's rules: every
/// head on every connection, the first and each later one alike. What breaks them is refused with
/// a status and a reason the server words through its `errorResponse` (then closes): a request line
/// that is not `METHOD SP target SP HTTP/x.y`, an unsupported version (505), an over-long request
/// line (414) or head (431), a header line without a colon or with whitespace before it, obsolete
/// line folding, and what `RequestFraming` checks on the fields.
enum HeadCheck {
    /// What the bytes so far say.
    enum Verdict {
        /// Not a whole head yet, and nothing wrong so far.
        case incomplete
        /// Refused: the status and a reason.
        case refuse(Int, String)
        /// A whole head, and how many bytes it took (empty lines before it included).
        case head(RequestHead, length: Int)
    }

    private static let cr: UInt8 = 0x0D
    private static let lf: UInt8 = 0x0A
    private static let space: UInt8 = 0x20
    private static let tab: UInt8 = 0x09

    /// Reads the head at the start of `bytes` (whose lines may end in CRLF or LF).
    static func parse(_ bytes: UnsafeRawBufferPointer, maxHeaderBytes: Int) -> Verdict {
        let count = bytes.count
        // A server ignores empty lines before a request line (RFC 9112 §2.2).
        var begin = 0
        while begin < count, bytes[begin] == cr || bytes[begin] == lf { begin += 1 }
        if begin > maxHeaderBytes {
            return .refuse(400, "the request starts with more than \(maxHeaderBytes) empty lines")
        }
        // Room for a usual head (request line and a dozen fields) from the start: growing the
        // array, and the fields' dictionary below, cost a tenth of reading a head.
        var lines: [Range<Int>] = []
        lines.reserveCapacity(16)
        var lineStart = begin
        var end: Int?
        while lineStart < count, let newline = index(of: lf, in: bytes, from: lineStart) {
            var lineEnd = newline
            if lineEnd > lineStart, bytes[lineEnd - 1] == cr { lineEnd -= 1 }
            if lineEnd == lineStart {
                end = newline + 1
                break
            }
            lines.append(lineStart..<lineEnd)
            lineStart = newline + 1
        }
        guard let end else {
            let pending = count - begin
            if lines.isEmpty, pending > maxHeaderBytes { return tooLongLine(maxHeaderBytes) }
            if pending > maxHeaderBytes { return tooLarge(maxHeaderBytes) }
            if let first = lines.first, case .refuse(let status, let reason) = requestLine(bytes, first) {
                return .refuse(status, reason)
            }
            return .incomplete
        }
        if end - begin > maxHeaderBytes {
            return lines[0].count > maxHeaderBytes ? tooLongLine(maxHeaderBytes) : tooLarge(maxHeaderBytes)
        }
        let line: (method: String, target: [UInt8], version: String)
        switch requestLine(bytes, lines[0]) {
        case .refuse(let status, let reason): return .refuse(status, reason)
        case .line(let method, let target, let version): line = (method, target, version)
        }
        var headers: [String: String] = Dictionary(minimumCapacity: lines.count - 1)
        var repeated: Set<String> = []
        for range in lines.dropFirst() {
            if bytes[range.lowerBound] == space || bytes[range.lowerBound] == tab {
                return .refuse(400, "a header line starts with whitespace (obsolete line folding, RFC 9112 §5.2)")
            }
            guard let colon = index(of: UInt8(ascii: ":"), in: bytes, from: range.lowerBound), colon < range.upperBound
            else {
                return .refuse(400, "a header line has no colon (RFC 9112 §5.1)")
            }
            let nameBytes = UnsafeRawBufferPointer(rebasing: bytes[range.lowerBound..<colon])
            guard !nameBytes.isEmpty, nameBytes.allSatisfy(isToken) else {
                return .refuse(
                    400,
                    "header name \"\(String(decoding: nameBytes.prefix(40), as: UTF8.self))\" is not a token "
                        + "(no whitespace before the colon, RFC 9112 §5.1)")
            }
            var valueStart = colon + 1
            var valueEnd = range.upperBound
            while valueStart < valueEnd, bytes[valueStart] == space || bytes[valueStart] == tab { valueStart += 1 }
            while valueEnd > valueStart, bytes[valueEnd - 1] == space || bytes[valueEnd - 1] == tab { valueEnd -= 1 }
            let name = HeaderName.lowercased(nameBytes)
            let value = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[valueStart..<valueEnd]), as: UTF8.self)
            if let existing = headers[name] {
                repeated.insert(name)
                headers[name] = existing + ", " + value
            } else {
                headers[name] = value
            }
        }
        if let refusal = RequestFraming.check(version: line.version, headers: headers, repeated: repeated) {
            return .refuse(refusal.status, refusal.reason)
        }
        let head = RequestHead(
            method: line.method, target: line.target, version: line.version, headers: headers, repeated: repeated)
        return .head(head, length: end)
    }

    /// The body's framing, once `RequestFraming` has passed the head: a `Content-Length` past
    /// `maxBodyBytes` (or past any integer) is refused 413 before a byte of the body is read.
    static func framing(_ head: RequestHead, maxBodyBytes: Int) throws(RequestFraming.Refusal) -> BodyFraming {
        if head.headers["transfer-encoding"] != nil { return .chunked }
        guard let length = head.headers["content-length"] else { return .none }
        let first = HeaderName.trimmed(length.split(separator: ",").first ?? length[...])
        guard let declared = Int(first), declared <= maxBodyBytes else {
            throw RequestFraming.Refusal(status: 413, reason: "request body is larger than \(maxBodyBytes) bytes")
        }
        return declared == 0 ? .none : .length(declared)
    }

    private enum Line {
        case line(String, [UInt8], String)
        case refuse(Int, String)
    }

    /// `METHOD SP request-target SP HTTP-version` (RFC 9112 §3).
    private static func requestLine(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>) -> Line {
        let line = UnsafeRawBufferPointer(rebasing: bytes[range])
        guard let first = line.firstIndex(of: space), let last = line.lastIndex(of: space), first < last else {
            return .refuse(400, "the request line is not METHOD SP target SP HTTP-version (RFC 9112 §3)")
        }
        let version = String(decoding: UnsafeRawBufferPointer(rebasing: line[(last + 1)...]), as: UTF8.self)
        guard version.hasPrefix("HTTP/") else {
            return .refuse(400, "the request line is not METHOD SP target SP HTTP-version (RFC 9112 §3)")
        }
        if version != "HTTP/1.1", version != "HTTP/1.0" {
            return .refuse(505, "HTTP version \(version.prefix(16)) is not supported; use HTTP/1.1")
        }
        let method = UnsafeRawBufferPointer(rebasing: line[..<first])
        guard method.allSatisfy(isToken) else {
            return .refuse(400, "the request method is not a token (RFC 9110 §9.1)")
        }
        let target = Array(line[(first + 1)..<last])
        guard !target.isEmpty, !target.contains(where: { $0 <= space || $0 == 0x7F }) else {
            return .refuse(400, "the request target is empty or contains whitespace or a control character")
        }
        return .line(String(decoding: method, as: UTF8.self), target, version)
    }

    private static func tooLongLine(_ limit: Int) -> Verdict {
        .refuse(414, "the request line is longer than \(limit) bytes: shorten the URL")
    }

    private static func tooLarge(_ limit: Int) -> Verdict {
        .refuse(431, "request headers are larger than \(limit) bytes")
    }

    static func index(of byte: UInt8, in bytes: UnsafeRawBufferPointer, from start: Int) -> Int? {
        guard start < bytes.count, let base = bytes.baseAddress else { return nil }
        guard let found = memchr(base + start, Int32(byte), bytes.count - start) else { return nil }
        return base.distance(to: UnsafeRawPointer(found))
    }

    /// RFC 9110 §5.6.2's tchar.
    private static let tokenBytes: [Bool] = (0..<256).map { byte in
        switch UInt8(byte) {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default: "!#$%&'*+-.^_`|~".utf8.contains(UInt8(byte))
        }
    }

    static func isToken(_ byte: UInt8) -> Bool {
        tokenBytes[Int(byte)]
    }
}
