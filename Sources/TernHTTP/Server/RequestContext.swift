import Foundation
import Synchronization

/// What the server knows about one request while libmicrohttpd reads it and the handler answers.
/// Created at the access handler's first call, retained in MHD's per-request slot, released when
/// MHD reports the request complete.
final class RequestContext: Sendable {
    enum Phase: Sendable {
        /// Reading the body.
        case receiving
        /// The body passed the limit mid-stream: the rest is read and dropped, this answer waits.
        case rejected(HTTPResponse)
        /// The connection is suspended; the handler runs.
        case handling
        /// The handler answered (or shutdown answered for it); the connection is being resumed.
        case ready(HTTPResponse)
        /// The answer is queued in MHD.
        case responded
    }

    /// The result of adding upload bytes.
    enum Upload {
        case appended
        /// Past the limit: answer 413 now.
        case overLimit
        /// Already rejected: the bytes are dropped.
        case dropped
        /// Already rejected and the client keeps streaming: close the connection.
        case abort
    }

    let method: String
    /// nil when the decoded path is not UTF-8.
    let path: String?
    let query: [String: String]
    let headers: [String: String]
    let remoteAddress: String?
    let connection: ConnectionHandle
    private let state: Mutex<(phase: Phase, body: Data, dropped: Int)>

    init(
        method: String, path: String?, query: [String: String], headers: [String: String],
        remoteAddress: String?, connection: ConnectionHandle
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.remoteAddress = remoteAddress
        self.connection = connection
        self.state = Mutex((.receiving, Data(), 0))
    }

    var phase: Phase {
        state.withLock { $0.phase }
    }

    /// Adds upload bytes unless that would pass `limit`. Once rejected, counts what it drops so that
    /// a client streaming without end is cut off after `dropLimit` bytes.
    func append(_ bytes: UnsafeRawBufferPointer, limit: Int, dropLimit: Int) -> Upload {
        state.withLock { state in
            switch state.phase {
            case .receiving:
                guard state.body.count + bytes.count <= limit else {
                    state.body = Data()
                    state.dropped = bytes.count
                    return .overLimit
                }
                state.body.append(contentsOf: bytes)
                return .appended
            default:
                state.dropped += bytes.count
                return state.dropped > dropLimit ? .abort : .dropped
            }
        }
    }

    /// Marks the body rejected after MHD refused an answer mid-upload.
    func reject(with response: HTTPResponse) {
        state.withLock { $0.phase = .rejected(response) }
    }

    /// The complete request, and the move to `.handling`.
    func beginHandling(path: String) -> HTTPRequest {
        state.withLock { state in
            state.phase = .handling
            var request = HTTPRequest(method: method, path: path, query: query, body: state.body)
            request.headers = headers
            request.remoteAddress = remoteAddress
            state.body = Data()
            return request
        }
    }

    /// Records the answer while the connection is suspended; true when the caller must resume it
    /// (only the first answer counts: the handler's, or shutdown's 503).
    func complete(with response: HTTPResponse) -> Bool {
        state.withLock { state in
            guard case .handling = state.phase else { return false }
            state.phase = .ready(response)
            return true
        }
    }

    func markResponded() {
        state.withLock { $0.phase = .responded }
    }
}

/// The connection pointer libmicrohttpd hands out, carried to the task that resumes it.
struct ConnectionHandle: @unchecked Sendable {
    let pointer: OpaquePointer
}
