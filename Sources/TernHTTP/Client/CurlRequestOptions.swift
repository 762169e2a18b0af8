import CCurl
import Foundation

/// A request checked and turned into libcurl options.
struct CurlRequestOptions {
    let method: String
    let url: String
    let headerLines: [String]
    let body: Data
    let timeoutMilliseconds: Int
    var summary: String { "\(method) \(url)" }

    init(_ request: HTTP2Request, configuration: HTTP2Client.Configuration) throws(HTTP2ClientError) {
        method = request.method.uppercased()
        url = request.url.absoluteString
        guard let scheme = request.url.scheme?.lowercased(), scheme == "https" || scheme == "http" else {
            throw HTTP2ClientError(.invalidRequest, "\(url): only https and http URLs are supported")
        }
        let isLetter = { (byte: UInt8) in (65...90).contains(byte) || (97...122).contains(byte) }
        guard !method.isEmpty, method.utf8.allSatisfy(isLetter) else {
            throw HTTP2ClientError(.invalidRequest, "\"\(request.method)\" is not an HTTP method")
        }
        var lines: [String] = []
        lines.reserveCapacity(request.headers.count + 1)
        for (name, value) in request.headers {
            guard Self.isHeaderName(name), Self.isHeaderValue(value) else {
                throw HTTP2ClientError(
                    .invalidRequest, "\(method) \(url): header \"\(name)\" has a forbidden character")
            }
            // libcurl drops "Name:" (no value) but sends "Name;" as an empty header.
            lines.append(value.isEmpty ? name + ";" : name + ": " + value)
        }
        // Never wait for "100 Continue" (HTTP/1.1 fallback only).
        lines.append("Expect:")
        headerLines = lines
        body = request.body
        let seconds = request.timeout ?? configuration.requestTimeout
        timeoutMilliseconds = max(1, Int((seconds * 1000).rounded()))
    }

    /// Sets every option on the transfer's easy handle (fresh or reset); the first failure's code,
    /// or CURLE_OK.
    func apply(to transfer: CurlTransfer, configuration: HTTP2Client.Configuration) -> CURLcode {
        let easy = transfer.easy
        let context = Unmanaged.passUnretained(transfer).toOpaque()
        var code = tern_curl_easy_setopt_string(easy, CURLOPT_URL, url)
        func set(_ option: CURLoption, _ value: Int) {
            if code == CURLE_OK { code = tern_curl_easy_setopt_long(easy, option, value) }
        }
        func set(_ option: CURLoption, pointer: UnsafeMutableRawPointer?) {
            if code == CURLE_OK { code = tern_curl_easy_setopt_pointer(easy, option, pointer) }
        }
        set(CURLOPT_HTTP_VERSION, configuration.httpVersionOption)
        set(CURLOPT_PIPEWAIT, 1)
        set(CURLOPT_NOSIGNAL, 1)
        set(CURLOPT_TCP_NODELAY, 1)
        set(CURLOPT_TCP_KEEPALIVE, 1)
        set(CURLOPT_TIMEOUT_MS, timeoutMilliseconds)
        set(CURLOPT_CONNECTTIMEOUT_MS, Int(configuration.connectTimeout * 1000))
        set(CURLOPT_ERRORBUFFER, pointer: transfer.errorBuffer)
        if code == CURLE_OK { code = tern_curl_easy_setopt_write_callback(easy, curlWriteBody) }
        set(CURLOPT_WRITEDATA, pointer: context)
        if code == CURLE_OK { code = tern_curl_easy_setopt_header_callback(easy, curlWriteHeader) }
        set(CURLOPT_HEADERDATA, pointer: context)
        if let caFile = configuration.caFile, code == CURLE_OK {
            code = tern_curl_easy_setopt_string(easy, CURLOPT_CAINFO, caFile)
        }
        if code == CURLE_OK { code = applyMethod(easy) }
        guard code == CURLE_OK else { return code }
        for line in headerLines {
            transfer.headerList = curl_slist_append(transfer.headerList, line)
        }
        return tern_curl_easy_setopt_slist(easy, CURLOPT_HTTPHEADER, transfer.headerList)
    }

    private func applyMethod(_ easy: UnsafeMutableRawPointer) -> CURLcode {
        switch method {
        case "GET" where body.isEmpty:
            return tern_curl_easy_setopt_long(easy, CURLOPT_HTTPGET, 1)
        case "HEAD":
            return tern_curl_easy_setopt_long(easy, CURLOPT_NOBODY, 1)
        case "DELETE" where body.isEmpty, "OPTIONS" where body.isEmpty:
            return tern_curl_easy_setopt_string(easy, CURLOPT_CUSTOMREQUEST, method)
        default:
            // Size first: COPYPOSTFIELDS copies exactly that many bytes (binary-safe).
            var code = tern_curl_easy_setopt_long(easy, CURLOPT_POSTFIELDSIZE, body.count)
            guard code == CURLE_OK else { return code }
            code = body.withUnsafeBytes { bytes in
                let empty: StaticString = ""
                let pointer = bytes.baseAddress ?? UnsafeRawPointer(empty.utf8Start)
                return tern_curl_easy_setopt_pointer(
                    easy, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: pointer))
            }
            guard code == CURLE_OK, method != "POST" else { return code }
            return tern_curl_easy_setopt_string(easy, CURLOPT_CUSTOMREQUEST, method)
        }
    }

    /// A token of RFC 9110 is stricter; libcurl only needs no colon, line break or NUL.
    private static func isHeaderName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.allSatisfy { $0 != UInt8(ascii: ":") && $0 != 0x0D && $0 != 0x0A && $0 != 0 }
    }

    private static func isHeaderValue(_ value: String) -> Bool {
        value.utf8.allSatisfy { $0 != 0x0D && $0 != 0x0A && $0 != 0 }
    }
}

/// libcurl's body callback: hands the bytes to the transfer.
private func curlWriteBody(
    _ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ context: UnsafeMutableRawPointer?
) -> Int {
    guard let context else { return 0 }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
    return transfer.receiveBody(UnsafeRawBufferPointer(start: data, count: size * count))
}

/// libcurl's header callback: one line at a time.
private func curlWriteHeader(
    _ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ context: UnsafeMutableRawPointer?
) -> Int {
    guard let context else { return 0 }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
    let line = String(decoding: UnsafeRawBufferPointer(start: data, count: size * count), as: UTF8.self)
    transfer.receiveHeader(line)
    return size * count
}
