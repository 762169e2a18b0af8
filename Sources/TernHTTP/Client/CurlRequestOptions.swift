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
        guard !method.isEmpty, method.allSatisfy({ $0.isLetter }) else {
            throw HTTP2ClientError(.invalidRequest, "\"\(request.method)\" is not an HTTP method")
        }
        var lines: [String] = []
        for (name, value) in request.headers {
            let bad = { (text: String) in text.unicodeScalars.contains { $0 == "\r" || $0 == "\n" || $0 == "\0" } }
            guard !name.isEmpty, !name.contains(":"), !bad(name), !bad(value) else {
                throw HTTP2ClientError(
                    .invalidRequest, "\(method) \(url): header \"\(name)\" has a forbidden character")
            }
            // libcurl drops "Name:" (no value) but sends "Name;" as an empty header.
            lines.append(value.isEmpty ? "\(name);" : "\(name): \(value)")
        }
        // Never wait for "100 Continue" (HTTP/1.1 fallback only).
        lines.append("Expect:")
        headerLines = lines
        body = request.body
        let seconds = request.timeout ?? configuration.requestTimeout
        timeoutMilliseconds = max(1, Int((seconds * 1000).rounded()))
    }

    /// Sets every option on the transfer's easy handle; the first failure's code, or CURLE_OK.
    func apply(to transfer: CurlTransfer, configuration: HTTP2Client.Configuration) -> CURLcode {
        let easy = transfer.easy
        let context = Unmanaged.passUnretained(transfer).toOpaque()
        var steps: [() -> CURLcode] = [
            { tern_curl_easy_setopt_string(easy, CURLOPT_URL, url) },
            { tern_curl_easy_setopt_long(easy, CURLOPT_HTTP_VERSION, configuration.httpVersionOption) },
            { tern_curl_easy_setopt_long(easy, CURLOPT_PIPEWAIT, 1) },
            { tern_curl_easy_setopt_long(easy, CURLOPT_NOSIGNAL, 1) },
            { tern_curl_easy_setopt_long(easy, CURLOPT_TCP_NODELAY, 1) },
            { tern_curl_easy_setopt_long(easy, CURLOPT_TCP_KEEPALIVE, 1) },
            { tern_curl_easy_setopt_long(easy, CURLOPT_TIMEOUT_MS, timeoutMilliseconds) },
            { tern_curl_easy_setopt_long(easy, CURLOPT_CONNECTTIMEOUT_MS, Int(configuration.connectTimeout * 1000)) },
            { tern_curl_easy_setopt_pointer(easy, CURLOPT_ERRORBUFFER, transfer.errorBuffer) },
            { tern_curl_easy_setopt_write_callback(easy, curlWriteBody) },
            { tern_curl_easy_setopt_pointer(easy, CURLOPT_WRITEDATA, context) },
            { tern_curl_easy_setopt_header_callback(easy, curlWriteHeader) },
            { tern_curl_easy_setopt_pointer(easy, CURLOPT_HEADERDATA, context) },
        ]
        if let caFile = configuration.caFile {
            steps.append { tern_curl_easy_setopt_string(easy, CURLOPT_CAINFO, caFile) }
        }
        steps += methodSteps(easy)
        for step in steps {
            let code = step()
            if code != CURLE_OK { return code }
        }
        for line in headerLines {
            transfer.headerList = curl_slist_append(transfer.headerList, line)
        }
        return tern_curl_easy_setopt_slist(easy, CURLOPT_HTTPHEADER, transfer.headerList)
    }

    private func methodSteps(_ easy: UnsafeMutableRawPointer) -> [() -> CURLcode] {
        switch method {
        case "GET" where body.isEmpty:
            return [{ tern_curl_easy_setopt_long(easy, CURLOPT_HTTPGET, 1) }]
        case "HEAD":
            return [{ tern_curl_easy_setopt_long(easy, CURLOPT_NOBODY, 1) }]
        case "DELETE" where body.isEmpty, "OPTIONS" where body.isEmpty:
            return [{ tern_curl_easy_setopt_string(easy, CURLOPT_CUSTOMREQUEST, method) }]
        default:
            // Size first: COPYPOSTFIELDS copies exactly that many bytes (binary-safe).
            var steps: [() -> CURLcode] = [
                { tern_curl_easy_setopt_long(easy, CURLOPT_POSTFIELDSIZE, body.count) },
                {
                    body.withUnsafeBytes { bytes in
                        let empty: StaticString = ""
                        let pointer = bytes.baseAddress ?? UnsafeRawPointer(empty.utf8Start)
                        return tern_curl_easy_setopt_pointer(
                            easy, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: pointer))
                    }
                },
            ]
            if method != "POST" {
                steps.append { tern_curl_easy_setopt_string(easy, CURLOPT_CUSTOMREQUEST, method) }
            }
            return steps
        }
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
