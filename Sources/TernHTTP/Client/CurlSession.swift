import CCurl
import Foundation

/// libcurl's multi handle's transfers, owned by the client's loop thread: made there, used only
/// there (`CurlLoop`), so it needs no lock and no actor.
final class CurlSession {
    let inbox: CurlInbox
    private let configuration: HTTP2Client.Configuration
    private var transfers: [UInt: CurlTransfer] = [:]
    private var handleByID: [UInt64: UInt] = [:]
    private var closed = false
    private let handles = CurlEasyHandles()

    init(inbox: CurlInbox, configuration: HTTP2Client.Configuration) {
        self.inbox = inbox
        self.configuration = configuration
    }

    static let shutDownError = HTTP2ClientError(.shutDown, "the HTTP/2 client was shut down")

    /// Starts the requests handed over since the last round.
    func start(_ submissions: [CurlSubmission]) {
        for submission in submissions {
            guard !closed else {
                submission.continuation.resume(throwing: Self.shutDownError)
                continue
            }
            start(id: submission.id, prepared: submission.prepared, attempt: 0, continuation: submission.continuation)
        }
    }

    /// One round of libcurl's work; returns how long the loop may poll, in milliseconds.
    func pump() -> Int32 {
        var running: Int32 = 0
        curl_multi_perform(inbox.multi.pointer, &running)
        var left: Int32 = 0
        while let message = curl_multi_info_read(inbox.multi.pointer, &left) {
            guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle else { continue }
            finish(UInt(bitPattern: easy), result: message.pointee.data.result)
        }
        var timeout = -1
        curl_multi_timeout(inbox.multi.pointer, &timeout)
        return Int32(timeout < 0 || timeout > 1000 ? 1000 : timeout)
    }

    func cancel(id: UInt64) {
        guard let key = handleByID[id], let transfer = remove(key) else { return }
        transfer.continuation.resume(throwing: CancellationError())
    }

    func shutDown() {
        closed = true
        for key in Array(transfers.keys) {
            remove(key)?.continuation.resume(
                throwing: HTTP2ClientError(.shutDown, "the HTTP/2 client was shut down during the request"))
        }
        handles.close()
    }

    private func start(
        id: UInt64, prepared: CurlRequestOptions, attempt: Int,
        continuation: CheckedContinuation<HTTP2Response, any Error>
    ) {
        guard let easy = handles.take() else {
            continuation.resume(throwing: HTTP2ClientError(.transport, "libcurl could not make an easy handle"))
            return
        }
        let transfer = CurlTransfer(
            id: id, easy: easy, handles: handles, prepared: prepared, attempt: attempt,
            maxResponseBytes: configuration.maxResponseBytes,
            continuation: continuation)
        let applied = prepared.apply(to: transfer, configuration: configuration)
        guard applied == CURLE_OK else {
            continuation.resume(
                throwing: HTTP2ClientError(
                    .invalidRequest,
                    "\(prepared.summary): libcurl refused an option: \(String(cString: curl_easy_strerror(applied)))"))
            return
        }
        let key = UInt(bitPattern: easy)
        transfers[key] = transfer
        handleByID[id] = key
        let added = curl_multi_add_handle(inbox.multi.pointer, easy)
        if added != CURLM_OK {
            remove(key)
            continuation.resume(
                throwing: HTTP2ClientError(
                    .transport, "\(prepared.summary): \(String(cString: curl_multi_strerror(added)))"))
        }
    }

    private func finish(_ key: UInt, result: CURLcode) {
        guard let transfer = remove(key) else { return }
        if result == CURLE_OK {
            var status = 0
            var version = 0
            tern_curl_easy_getinfo_long(transfer.easy, CURLINFO_RESPONSE_CODE, &status)
            tern_curl_easy_getinfo_long(transfer.easy, CURLINFO_HTTP_VERSION, &version)
            transfer.continuation.resume(
                returning: HTTP2Response(
                    status: status, headers: transfer.headers, body: transfer.body,
                    httpVersion: Self.versionName(version)))
        } else if CurlFailure.neverSent(result, transfer: transfer) && transfer.attempt == 0 {
            // libcurl 7.88 may put a new stream on a connection that has just received GOAWAY;
            // the request never left, so it is safe to try once more (on a new connection).
            start(
                id: transfer.id, prepared: transfer.prepared, attempt: 1, continuation: transfer.continuation)
        } else {
            transfer.continuation.resume(throwing: CurlFailure.error(result, transfer: transfer))
        }
    }

    @discardableResult
    private func remove(_ key: UInt) -> CurlTransfer? {
        guard let transfer = transfers.removeValue(forKey: key) else { return nil }
        handleByID.removeValue(forKey: transfer.id)
        curl_multi_remove_handle(inbox.multi.pointer, transfer.easy)
        return transfer
    }

    private static func versionName(_ version: Int) -> String {
        switch version {
        case Int(CURL_HTTP_VERSION_1_0): return "1.0"
        case Int(CURL_HTTP_VERSION_1_1): return "1.1"
        case Int(CURL_HTTP_VERSION_2_0): return "2"
        case Int(CURL_HTTP_VERSION_3): return "3"
        default: return "unknown"
        }
    }
}
