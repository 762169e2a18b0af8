import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One client connection: its bytes in, its answers out, one request at a time (a pipelined
/// request waits in the input until the one before it is answered, so answers go out in order).
///
/// Every step runs under the connection's lock, on whichever thread has something to do: the
/// event loop when bytes arrive or the socket drains, the handler's task when its answer is ready
/// (it writes the answer itself, without waking the loop, and reads the next pipelined head), the
/// sweep when a deadline passes. Whatever breaks the framing is answered through the server's
/// `errorResponse` with `Connection: close`; the connection then stops writing and reads what is
/// still coming for a moment before it closes (a close with unread bytes would send a reset that
/// can destroy the answer before the client reads it).
final class Connection: Sendable {
    enum Phase {
        /// Waiting for a head, since the connection opened or the previous answer was written.
        case head(since: ContinuousClock.Instant)
        /// Reading the body, since the head arrived.
        case body(since: ContinuousClock.Instant)
        /// The handler runs.
        case handling
        /// The last answer is being written; then the connection lingers and closes.
        case finishing
        /// Writing is over; what the client still sends is read and dropped until `until`.
        case lingering(until: ContinuousClock.Instant)
        case closed
    }

    enum Body {
        case length(Int)
        case chunked(ChunkedBody)
        case complete
    }

    struct Request {
        let method: String
        /// nil when the decoded path is not UTF-8.
        let path: String?
        let query: [String: String]
        let headers: [String: String]
        let keepAlive: Bool
        let oldVersion: Bool
        var body: Body
        var bytes = Data()
    }

    struct State {
        var phase: Phase
        var input: [UInt8] = []
        /// How much of `input` is read already.
        var consumed = 0
        var output: [UInt8] = []
        var written = 0
        var request: Request?
        /// The request is counted in `ServerCore.inFlight`.
        var counted = false
        /// The client has stopped sending (end of stream read).
        var peerClosed = false
        /// What the poller watches for now.
        var reading = true
        var writing = false
        var lastActivity: ContinuousClock.Instant
        /// Bytes dropped while lingering.
        var dropped = 0
    }

    /// How long a closing connection reads and drops what the client still sends.
    static let lingerSeconds = 2

    let id: UInt64
    let fd: Int32
    let address: String
    let loop: EventLoop
    private let state: Mutex<State>
    var core: ServerCore { loop.core }

    init(id: UInt64, fd: Int32, address: String, loop: EventLoop) {
        self.id = id
        self.fd = fd
        self.address = address
        self.loop = loop
        let now = ContinuousClock.now
        self.state = Mutex(State(phase: .head(since: now), lastActivity: now))
    }

    /// The loop saw the socket ready.
    func ready(readable: Bool, writable: Bool, scratch: inout [UInt8]) {
        state.withLock { state in
            if case .closed = state.phase { return }
            if writable, state.written < state.output.count { flush(&state) }
            if readable { receive(&state, scratch: &scratch) }
            advance(&state)
        }
    }

    /// The handler's answer, from its task: written at once where the socket takes it.
    func finish(_ response: HTTPResponse) {
        state.withLock { state in
            guard case .handling = state.phase else { return }
            respond(&state, response, close: false)
            advance(&state)
        }
    }

    /// The deadlines: a head or body past its time, an idle connection, a linger that is over;
    /// while stopping, a connection that waits for a head is closed.
    func sweep(now: ContinuousClock.Instant) {
        let limits = core.limits
        state.withLock { state in
            let idle = limits.idleSeconds > 0 && now - state.lastActivity > .seconds(limits.idleSeconds)
            let writing = state.written < state.output.count
            switch state.phase {
            case .closed, .handling:
                return
            case .head(let since):
                let late = limits.headSeconds > 0 && now - since > .seconds(limits.headSeconds) && !writing
                let quiet = core.stopping.load(ordering: .relaxed) && !writing && state.consumed == state.input.count
                if late || idle || quiet { closeNow(&state) }
            case .body(let since):
                if limits.bodySeconds > 0, now - since > .seconds(limits.bodySeconds) {
                    respond(&state, core.lateBody, close: true)
                } else if idle {
                    closeNow(&state)
                }
            case .finishing:
                if idle { closeNow(&state) }
            case .lingering(let until):
                if now >= until { closeNow(&state) }
            }
            updateInterest(&state)
        }
    }

    /// Past the grace period: a handler still running is answered 503 for.
    func abandon() {
        state.withLock { state in
            guard case .handling = state.phase else { return }
            respond(&state, core.errorResponse(503, "server is shutting down"), close: true)
            updateInterest(&state)
        }
    }

    /// The loop ends: what is queued is written if the socket takes it, then the connection closes.
    func shutDown() {
        state.withLock { state in
            if state.written < state.output.count { flush(&state) }
            closeNow(&state)
        }
    }

    // MARK: - Reading

    private func receive(_ state: inout State, scratch: inout [UInt8]) {
        let cap = inputCap
        while true {
            let count = scratch.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                state.lastActivity = .now
                if case .lingering = state.phase {
                    state.dropped += count
                    if state.dropped > max(core.limits.maxBodyBytes, 1 << 20) * 4 {
                        closeNow(&state)
                        return
                    }
                    continue
                }
                state.input.append(contentsOf: scratch[0..<count])
                if count < scratch.count || state.input.count - state.consumed > cap { return }
                continue
            }
            if count == 0 {
                // Seen twice, or while lingering: nothing more will come and nothing is owed.
                if state.peerClosed {
                    closeNow(&state)
                } else if case .lingering = state.phase {
                    closeNow(&state)
                } else {
                    state.peerClosed = true
                }
                return
            }
            if errno == EINTR { continue }
            if errno != EAGAIN && errno != EWOULDBLOCK { closeNow(&state) }
            return
        }
    }

    /// How much unread input a connection may hold (a pipelined head waiting its turn): beyond
    /// it, the socket is not read until the input is taken.
    var inputCap: Int { core.limits.maxHeaderBytes + (1 << 16) }

    /// Reads heads and bodies from the input as far as it goes, dispatching whole requests.
    private func advance(_ state: inout State) {
        steps: while true {
            switch state.phase {
            case .closed, .handling, .finishing:
                break steps
            case .lingering:
                state.input = []
                state.consumed = 0
                break steps
            case .head:
                // The previous answer first: a client that does not read is not read from either.
                guard state.written >= state.output.count, readHead(&state) else { break steps }
            case .body:
                guard readBody(&state) else { break steps }
            }
        }
        compact(&state)
        updateInterest(&state)
    }

    /// One head from the input; true when the phase moved on.
    private func readHead(_ state: inout State) -> Bool {
        let start = state.consumed
        guard start < state.input.count else {
            if state.peerClosed { closeNow(&state) }
            return false
        }
        let limit = core.limits.maxHeaderBytes
        let verdict = state.input.withUnsafeBytes {
            HeadCheck.parse(UnsafeRawBufferPointer(rebasing: $0[start...]), maxHeaderBytes: limit)
        }
        switch verdict {
        case .incomplete:
            if state.peerClosed { closeNow(&state) }
            return false
        case .refuse(let status, let reason):
            respond(&state, core.errorResponse(status, reason), close: true)
            return true
        case .head(let head, let length):
            state.consumed += length
            begin(&state, head)
            return true
        }
    }

    private func begin(_ state: inout State, _ head: RequestHead) {
        let body: Body
        do {
            switch try HeadCheck.framing(head, maxBodyBytes: core.limits.maxBodyBytes) {
            case .none: body = .complete
            case .length(let length): body = .length(length)
            case .chunked: body = .chunked(ChunkedBody())
            }
        } catch {
            respond(&state, core.errorResponse(error.status, error.reason), close: true)
            return
        }
        let (path, query) = RequestTarget.decode(head.target)
        let tokens = (head.headers["connection"] ?? "").lowercased().split(separator: ",").map(HeaderName.trimmed)
        let oldVersion = head.version == "HTTP/1.0"
        let keepAlive = oldVersion ? tokens.contains("keep-alive") : !tokens.contains("close")
        state.request = Request(
            method: head.method, path: path, query: query, headers: head.headers, keepAlive: keepAlive,
            oldVersion: oldVersion, body: body)
        state.counted = true
        core.inFlight.add(1, ordering: .relaxed)
        state.phase = .body(since: .now)
        // A client that asked whether to send its body is told to (RFC 9110 §10.1.1).
        let bodyToCome: Bool
        if case .complete = body { bodyToCome = false } else { bodyToCome = true }
        if bodyToCome, !oldVersion, head.headers["expect"]?.lowercased() == "100-continue",
            state.consumed == state.input.count
        {
            state.output.append(contentsOf: "HTTP/1.1 100 Continue\r\n\r\n".utf8)
            flush(&state)
        }
    }

    /// The body from the input; true when the request moved on (dispatched or refused).
    private func readBody(_ state: inout State) -> Bool {
        guard var request = state.request else { return false }
        state.request = nil  // the body's bytes stay uniquely referenced while they grow
        let start = state.consumed
        switch request.body {
        case .complete:
            break
        case .length(let left):
            let take = min(left, state.input.count - start)
            request.bytes.append(contentsOf: state.input[start..<(start + take)])
            state.consumed += take
            if take < left {
                request.body = .length(left - take)
                state.request = request
                if state.peerClosed { closeNow(&state) }
                return false
            }
        case .chunked(var decoder):
            let limits = core.limits
            let (used, outcome) = state.input.withUnsafeBytes {
                decoder.decode(
                    UnsafeRawBufferPointer(rebasing: $0[start...]), into: &request.bytes,
                    maxBodyBytes: limits.maxBodyBytes, maxTrailerBytes: limits.maxHeaderBytes)
            }
            state.consumed += used
            request.body = .chunked(decoder)
            state.request = request
            switch outcome {
            case .needMore:
                if state.peerClosed { closeNow(&state) }
                return false
            case .refuse(let status, let reason):
                respond(&state, core.errorResponse(status, reason), close: true)
                return true
            case .done:
                state.request = nil
            }
        }
        request.body = .complete
        state.request = request
        dispatch(&state)
        return true
    }

    /// Hands a whole request to the handler, in a task of its own.
    private func dispatch(_ state: inout State) {
        guard var request = state.request else { return }
        guard let path = request.path else {
            respond(&state, core.errorResponse(400, "request path is not valid UTF-8"), close: false)
            return
        }
        if core.forcing.load(ordering: .relaxed) {
            respond(&state, core.errorResponse(503, "server is shutting down"), close: true)
            return
        }
        var made = HTTPRequest(method: request.method, path: path, query: request.query, body: request.bytes)
        made.headers = request.headers
        made.remoteAddress = address
        let incoming = made
        request.bytes = Data()
        state.request = request
        state.phase = .handling
        let handler = core.handler
        Task(executorPreference: loop) { [self] in
            finish(await handler.handle(incoming))
        }
    }
}
