import Foundation

/// RFC 9112's framing rules for a request head's fields, checked once `HeadCheck` has read the
/// head and before any body is read: two different `Content-Length` values, `Content-Length`
/// beside `Transfer-Encoding`, an unknown transfer coding, no `Host` or two, a control character in
/// a value. Each is answered through the server's `errorResponse` and the connection is closed
/// after the answer, because a peer that frames one message badly cannot be trusted to frame the
/// next.
enum RequestFraming {
    /// Why the head is refused: the status (400, 501 or 505) and a reason a person can act on.
    struct Refusal: Error, Equatable {
        let status: Int
        let reason: String
    }

    /// Checks `headers` (names lowercased, repeated values joined with `", "`, `repeated` naming
    /// those) of a request in `version`. Returns nil when the framing is sound.
    static func check(version: String, headers: [String: String], repeated: Set<String>) -> Refusal? {
        guard version == "HTTP/1.1" || version == "HTTP/1.0" else {
            return Refusal(status: 505, reason: "HTTP version \(version) is not supported; use HTTP/1.1")
        }
        if version == "HTTP/1.1" {
            guard let host = headers["host"], !host.isEmpty else {
                return Refusal(status: 400, reason: "an HTTP/1.1 request must carry a Host header (RFC 9112 §3.2)")
            }
        }
        if repeated.contains("host") {
            return Refusal(status: 400, reason: "the request carries more than one Host header (RFC 9112 §3.2)")
        }
        for (name, value) in headers where value.utf8.contains(where: isForbiddenInValue) {
            return Refusal(
                status: 400, reason: "header \(name) contains a control character (CR, LF or NUL) (RFC 9110 §5.5)")
        }
        if let coding = headers["transfer-encoding"] {
            if version == "HTTP/1.0" {
                return Refusal(
                    status: 400, reason: "Transfer-Encoding is not allowed in an HTTP/1.0 request (RFC 9112 §6.1)")
            }
            if headers["content-length"] != nil {
                return Refusal(
                    status: 400,
                    reason: "the request carries both Content-Length and Transfer-Encoding; send one (RFC 9112 §6.1)")
            }
            let codings = coding.split(separator: ",").map { HeaderName.trimmed($0).lowercased() }
            guard codings == ["chunked"] else {
                return Refusal(
                    status: 501,
                    reason: "transfer coding \"\(coding)\" is not supported; send Content-Length or chunked alone")
            }
        }
        if let length = headers["content-length"] {
            let values =
                repeated.contains("content-length")
                ? Set(length.split(separator: ",").map { String(HeaderName.trimmed($0)) }) : [length]
            if values.count > 1 {
                return Refusal(
                    status: 400,
                    reason: "the request carries Content-Length more than once with different values (\(length)); "
                        + "send one (RFC 9112 §6.3)")
            }
            guard let only = values.first, !only.isEmpty, only.utf8.allSatisfy(isDigit) else {
                return Refusal(
                    status: 400, reason: "Content-Length \"\(length)\" is not one decimal number (RFC 9112 §6.3)")
            }
        }
        return nil
    }

    private static func isForbiddenInValue(_ byte: UInt8) -> Bool {
        byte == 0x0D || byte == 0x0A || byte == 0x00
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte)
    }
}
