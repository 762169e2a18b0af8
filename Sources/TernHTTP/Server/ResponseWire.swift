import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An `HTTPResponse` as the bytes of an HTTP/1.1 answer: the status line, the handler's headers
/// (a name that is not a token, or a value with CR, LF or NUL, is left out: it could split the
/// answer), `Date`, `Content-Length` and, when the connection ends, `Connection: close`.
enum ResponseWire {
    /// Headers the server writes itself; a handler's value would contradict the framing.
    /// Compared byte by byte, without their case: lowercasing each header into a new string to look
    /// it up in a set was a fifth of encoding an answer.
    private static let managed = ["content-length", "transfer-encoding", "connection"]
    private static let dateCache = Mutex<(second: Int, text: String)>((-1, ""))

    /// `closing` adds `Connection: close`; `keepAlive` (an HTTP/1.0 client that asked for it)
    /// `Connection: keep-alive`; `headOnly` (a HEAD request) leaves the body out but not its length.
    static func encode(_ response: HTTPResponse, closing: Bool, keepAlive: Bool, headOnly: Bool) -> [UInt8] {
        let status = response.status
        let bodiless = status < 200 || status == 204 || status == 304
        var out: [UInt8] = []
        out.reserveCapacity(160 + (bodiless || headOnly ? 0 : response.body.count))
        out.append(contentsOf: "HTTP/1.1 \(status) \(reasonPhrase(status))\r\n".utf8)
        var dated = false
        for (name, value) in response.headers {
            guard !name.isEmpty, name.utf8.allSatisfy(HeadCheck.isToken),
                !value.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0 })
            else { continue }
            if managed.contains(where: { HeaderName.same(name, $0) }) { continue }
            if HeaderName.same(name, "date") { dated = true }
            out.append(contentsOf: name.utf8)
            out.append(contentsOf: ": ".utf8)
            out.append(contentsOf: value.utf8)
            out.append(contentsOf: "\r\n".utf8)
        }
        if !dated { out.append(contentsOf: "Date: \(httpDate())\r\n".utf8) }
        if !bodiless { out.append(contentsOf: "Content-Length: \(response.body.count)\r\n".utf8) }
        if closing {
            out.append(contentsOf: "Connection: close\r\n".utf8)
        } else if keepAlive {
            out.append(contentsOf: "Connection: keep-alive\r\n".utf8)
        }
        out.append(contentsOf: "\r\n".utf8)
        if !bodiless, !headOnly { out.append(contentsOf: response.body) }
        return out
    }

    /// True when the handler's own headers ask for the connection to close.
    static func asksToClose(_ response: HTTPResponse) -> Bool {
        response.headers.contains { name, value in
            HeaderName.same(name, "connection") && value.lowercased().contains("close")
        }
    }

    /// Now as an IMF-fixdate (`Tue, 01 Dec 2026 08:50:16 GMT`), formatted once a second.
    static func httpDate() -> String {
        var now = time(nil)
        return dateCache.withLock { cache in
            if cache.second == Int(now) { return cache.text }
            var parts = tm()
            gmtime_r(&now, &parts)
            var text = [CChar](repeating: 0, count: 40)
            _ = strftime(&text, text.count, "%a, %d %b %Y %H:%M:%S GMT", &parts)
            cache = (Int(now), String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
            return cache.text
        }
    }

    static func reasonPhrase(_ status: Int) -> String {
        switch status {
        case 100: "Continue"
        case 101: "Switching Protocols"
        case 200: "OK"
        case 201: "Created"
        case 202: "Accepted"
        case 204: "No Content"
        case 206: "Partial Content"
        case 207: "Multi-Status"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 303: "See Other"
        case 304: "Not Modified"
        case 307: "Temporary Redirect"
        case 308: "Permanent Redirect"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 406: "Not Acceptable"
        case 408: "Request Timeout"
        case 409: "Conflict"
        case 410: "Gone"
        case 411: "Length Required"
        case 412: "Precondition Failed"
        case 413: "Content Too Large"
        case 414: "URI Too Long"
        case 415: "Unsupported Media Type"
        case 422: "Unprocessable Content"
        case 428: "Precondition Required"
        case 429: "Too Many Requests"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        case 505: "HTTP Version Not Supported"
        default: "Status"
        }
    }
}
