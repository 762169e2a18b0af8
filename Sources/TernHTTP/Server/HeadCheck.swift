import Foundation

/// The framing checks libmicrohttpd 0.9.75 would answer with its own HTML page: made on the bytes
/// of a new connection's first head (peeked, not read) before the connection is handed to it, so
/// that these refusals are worded by the server's `errorResponse` like every other answer.
enum HeadCheck {
    /// What the peeked bytes say.
    enum Verdict: Equatable {
        /// Not a whole head yet.
        case incomplete
        /// Sound as far as these checks go: hand the connection on.
        case pass
        /// Refused: the status and a reason.
        case refuse(Int, String)
    }

    /// Checks `bytes` (the start of a connection) against a head limit and a body limit.
    static func check(_ bytes: [UInt8], maxHeaderBytes: Int, maxBodyBytes: Int) -> Verdict {
        guard let (end, bodyStart) = headEnd(bytes) else {
            if let line = bytes.firstIndex(of: 0x0A) ?? (bytes.count > maxHeaderBytes ? bytes.count : nil),
                let refusal = requestLine(Array(bytes[..<line]), maxHeaderBytes: maxHeaderBytes)
            {
                return refusal
            }
            if bytes.count > maxHeaderBytes {
                return .refuse(431, "request headers are larger than \(maxHeaderBytes) bytes")
            }
            return .incomplete
        }
        let lines = split(Array(bytes[..<end]))
        guard let first = lines.first else { return .pass }
        if let refusal = requestLine(first, maxHeaderBytes: maxHeaderBytes) { return refusal }
        var chunked = false
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { continue }
            let name = String(decoding: line[..<colon], as: UTF8.self).lowercased()
            let value = String(decoding: line[(colon + 1)...], as: UTF8.self).trimmingCharacters(in: .whitespaces)
            if name == "content-length" {
                let parts = value.split(separator: ",", omittingEmptySubsequences: false).map {
                    $0.trimmingCharacters(in: .whitespaces)
                }
                for part in parts {
                    guard !part.isEmpty, part.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else {
                        return .refuse(
                            400, "Content-Length \"\(value.prefix(40))\" is not one decimal number (RFC 9112 §6.3)")
                    }
                    guard let length = Int(part), length <= maxBodyBytes else {
                        return .refuse(413, "request body is larger than \(maxBodyBytes) bytes")
                    }
                }
            }
            if name == "transfer-encoding", value.lowercased().hasSuffix("chunked") { chunked = true }
        }
        if chunked { return chunkSize(Array(bytes[bodyStart...]), maxBodyBytes: maxBodyBytes) }
        return .pass
    }

    /// `METHOD SP target SP HTTP/x.y`: a version libmicrohttpd would refuse, or a target too long.
    static func requestLine(_ line: [UInt8], maxHeaderBytes: Int) -> Verdict? {
        let text = line.last == 0x0D ? line.dropLast() : line[...]
        if text.count > maxHeaderBytes {
            return .refuse(414, "the request line is longer than \(maxHeaderBytes) bytes: shorten the URL")
        }
        guard let space = text.lastIndex(of: 0x20) else { return nil }
        let version = String(decoding: text[(space + 1)...], as: UTF8.self)
        guard version.hasPrefix("HTTP/") else { return nil }
        if version != "HTTP/1.1", version != "HTTP/1.0" {
            return .refuse(505, "HTTP version \(version.prefix(16)) is not supported; use HTTP/1.1")
        }
        return nil
    }

    /// The first chunk's size line, when it has arrived: hexadecimal, and within the body limit.
    static func chunkSize(_ body: [UInt8], maxBodyBytes: Int) -> Verdict {
        guard let end = body.firstIndex(of: 0x0A) else {
            return body.count > 64 ? .refuse(400, "the chunk size line is malformed (RFC 9112 §7.1)") : .pass
        }
        var line = body[..<end]
        if line.last == 0x0D { line = line.dropLast() }
        let size = line.prefix { $0 != UInt8(ascii: ";") }
        let digits = String(decoding: size, as: UTF8.self).trimmingCharacters(in: .whitespaces)
        guard !digits.isEmpty, digits.allSatisfy(\.isHexDigit) else {
            return .refuse(400, "chunk size \"\(digits.prefix(20))\" is not a hexadecimal number (RFC 9112 §7.1)")
        }
        guard digits.count <= 15, let value = Int(digits, radix: 16), value <= maxBodyBytes else {
            return .refuse(413, "a chunk of the request body is larger than \(maxBodyBytes) bytes")
        }
        return .pass
    }

    /// Where the head ends (before its empty line) and the body starts; lines may end in CRLF or LF.
    static func headEnd(_ bytes: [UInt8]) -> (Int, Int)? {
        var index = 0
        while let newline = bytes[index...].firstIndex(of: 0x0A) {
            let next = newline + 1
            if next < bytes.count, bytes[next] == 0x0A { return (newline, next + 1) }
            if next + 1 < bytes.count, bytes[next] == 0x0D, bytes[next + 1] == 0x0A { return (newline, next + 2) }
            index = next
        }
        return nil
    }

    static func split(_ head: [UInt8]) -> [[UInt8]] {
        head.split(separator: 0x0A, omittingEmptySubsequences: false).map { line in
            line.last == 0x0D ? Array(line.dropLast()) : Array(line)
        }
    }
}
