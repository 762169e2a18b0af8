import CCurl
import Foundation

/// libcurl's result codes as `HTTP2ClientError`s with the request and libcurl's own detail.
enum CurlFailure {
    /// A connection-level failure before any byte of the request was sent: safe to try again.
    static func neverSent(_ code: CURLcode, transfer: CurlTransfer) -> Bool {
        [CURLE_HTTP2, CURLE_HTTP2_STREAM, CURLE_SEND_ERROR, CURLE_GOT_NOTHING].contains(code)
            && transfer.bytesSent == 0
    }

    static func error(_ code: CURLcode, transfer: CurlTransfer) -> HTTP2ClientError {
        let detail = transfer.errorDetail.isEmpty ? String(cString: curl_easy_strerror(code)) : transfer.errorDetail
        switch code {
        case CURLE_OPERATION_TIMEDOUT:
            return HTTP2ClientError(
                .timeout, "\(transfer.summary) timed out after \(transfer.timeoutMilliseconds) ms (\(detail))")
        case CURLE_COULDNT_CONNECT, CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY:
            return HTTP2ClientError(.connect, "\(transfer.summary): cannot connect: \(detail)")
        case CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CONNECT_ERROR, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER,
            CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ISSUER_ERROR, CURLE_SSL_PINNEDPUBKEYNOTMATCH:
            return HTTP2ClientError(.tls, "\(transfer.summary): TLS failed: \(detail)")
        case CURLE_WRITE_ERROR where transfer.overflowed:
            return HTTP2ClientError(
                .responseTooLarge, "\(transfer.summary): the answer is larger than \(transfer.maxResponseBytes) bytes")
        case CURLE_URL_MALFORMAT, CURLE_UNSUPPORTED_PROTOCOL:
            return HTTP2ClientError(.invalidRequest, "\(transfer.summary): \(detail)")
        default:
            return HTTP2ClientError(.transport, "\(transfer.summary): \(detail)")
        }
    }
}
