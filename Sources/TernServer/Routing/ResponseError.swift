import Foundation
import TernHTTP

/// An error that says its own answer: its status and its envelope. The router sends what a
/// handler's error renders; any other error is a 500 whose details go to the log.
protocol HTTPResponseError: Error {
    /// The answer to send.
    var response: HTTPResponse { get }
    /// For failures on the server's side, what the log should say; nil for the client's mistakes.
    var logReason: String? { get }
    /// Counts the failure in the metrics, when it is counted by kind.
    func record(in metrics: Metrics)
}

extension HTTPResponseError {
    var logReason: String? { nil }
    func record(in metrics: Metrics) {}
}

extension APIError: HTTPResponseError {
    var response: HTTPResponse { .envelope(status, reason) }
}

extension DecodingError: HTTPResponseError {
    var response: HTTPResponse { .envelope(400, JSONBody.describe(self)) }
}

extension StoreError: HTTPResponseError {
    var response: HTTPResponse {
        switch self {
        case .busy, .closed:
            var response = HTTPResponse.envelope(503, "the store is busy or shutting down: retry shortly")
            response.headers.append(("Retry-After", "1"))
            return response
        case .conflict: return .envelope(409, "conflict: the request collided with another change; retry it")
        case .backend: return .envelope(500, "internal store error; the server log has the details")
        }
    }

    var logReason: String? { description }

    func record(in metrics: Metrics) { metrics.recordStoreError(kind: kind) }
}

extension HTTPResponse {
    /// Tern's envelope for an error: `{"error":404,"error_text":"…","profile":null}`. The HTTP
    /// server words its own errors (413, 431, …) with it too.
    static func envelope(_ status: Int, _ reason: String) -> HTTPResponse {
        var body = Array("{\"error\":\(status),\"error_text\":".utf8)
        JSONText.appendString(reason, to: &body)
        body += ",\"profile\":null}".utf8
        return .json(status, Data(body))
    }
}
