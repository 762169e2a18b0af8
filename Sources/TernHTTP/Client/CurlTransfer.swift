import CCurl
import Foundation

/// One request in flight: its easy handle, what it owns until done, and what came back. Owned by
/// `CurlSession` on the loop thread; libcurl's callbacks reach it through an unretained pointer.
final class CurlTransfer {
    let id: UInt64
    let easy: UnsafeMutableRawPointer
    let prepared: CurlRequestOptions
    /// 0 for the first try; a request that never left is tried once more (see `CurlSession.finish`).
    let attempt: Int
    let maxResponseBytes: Int
    let continuation: CheckedContinuation<HTTP2Response, any Error>
    var headerList: UnsafeMutablePointer<curl_slist>?
    let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE))
    var status = 0
    var headers: [(String, String)] = []
    var body = Data()
    var overflowed = false

    private let handles: CurlEasyHandles

    init(
        id: UInt64, easy: UnsafeMutableRawPointer, handles: CurlEasyHandles, prepared: CurlRequestOptions,
        attempt: Int, maxResponseBytes: Int, continuation: CheckedContinuation<HTTP2Response, any Error>
    ) {
        self.id = id
        self.easy = easy
        self.handles = handles
        self.prepared = prepared
        self.attempt = attempt
        self.maxResponseBytes = maxResponseBytes
        self.continuation = continuation
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
    }

    deinit {
        handles.recycle(easy)
        curl_slist_free_all(headerList)
        errorBuffer.deallocate()
    }

    /// A body piece from libcurl; returning less than given aborts the transfer.
    func receiveBody(_ bytes: UnsafeRawBufferPointer) -> Int {
        guard body.count + bytes.count <= maxResponseBytes else {
            overflowed = true
            return 0
        }
        body.append(contentsOf: bytes)
        return bytes.count
    }

    /// A header line from libcurl: a status line starts a new set (after 1xx answers).
    func receiveHeader(_ line: String) {
        // On the UTF-8 bytes: Foundation's trimming was a sixth of the client's time under load.
        let bytes = line.utf8
        let isSpace = { (byte: UInt8) in byte == 0x20 || byte == 0x09 || byte == 0x0D || byte == 0x0A }
        guard let first = bytes.firstIndex(where: { !isSpace($0) }),
            let last = bytes.lastIndex(where: { !isSpace($0) })
        else { return }
        let trimmed = bytes[first...last]
        if trimmed.starts(with: "HTTP/".utf8) {
            headers.removeAll()
            return
        }
        guard let colon = trimmed.firstIndex(of: UInt8(ascii: ":")) else { return }
        var start = trimmed.index(after: colon)
        while start < trimmed.endIndex, isSpace(trimmed[start]) { start = trimmed.index(after: start) }
        let name = String(decoding: trimmed[..<colon], as: UTF8.self).lowercased()
        headers.append((name, String(decoding: trimmed[start...], as: UTF8.self)))
    }

    var summary: String { prepared.summary }
    var timeoutMilliseconds: Int { prepared.timeoutMilliseconds }

    /// Bytes of request libcurl sent; 0 when the request never left (e.g. the connection it
    /// picked had just received GOAWAY).
    var bytesSent: Int {
        var size = 0
        tern_curl_easy_getinfo_long(easy, CURLINFO_REQUEST_SIZE, &size)
        return size
    }

    var errorDetail: String {
        String(decoding: UnsafeRawBufferPointer(start: errorBuffer, count: strlen(errorBuffer)), as: UTF8.self)
    }
}
