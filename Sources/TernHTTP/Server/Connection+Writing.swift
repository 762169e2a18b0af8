import Foundation

#if canImport(Glibc)
    import Glibc
    private let sendFlags = Int32(MSG_NOSIGNAL)
#elseif canImport(Darwin)
    import Darwin
    private let sendFlags: Int32 = 0  // SO_NOSIGPIPE is set on the socket
#endif

/// A connection's writing side: the answer encoded and queued, written without blocking, then the
/// linger and the close; and what the poller watches for. Each runs under the connection's lock,
/// with its `State`, like the reading side in `Connection.swift`.
extension Connection {
    /// Queues the answer to the current request (or to a head that was refused) and writes it.
    func respond(_ state: inout State, _ response: HTTPResponse, close: Bool) {
        var response = response
        if !(100...599).contains(response.status) {
            response = core.errorResponse(500, "the handler answered an invalid HTTP status \(response.status)")
        }
        let request = state.request
        state.request = nil
        if state.counted {
            state.counted = false
            core.inFlight.subtract(1, ordering: .relaxed)
        }
        let closing =
            close || !(request?.keepAlive ?? false) || core.stopping.load(ordering: .relaxed)
            || ResponseWire.asksToClose(response)
        state.output.append(
            contentsOf: ResponseWire.encode(
                response, closing: closing, keepAlive: request?.oldVersion == true,
                headOnly: request?.method == "HEAD"))
        let now = ContinuousClock.now
        state.phase = closing ? .finishing : .head(since: now)
        state.lastActivity = now
        flush(&state)
    }

    /// Writes what is queued without blocking; the rest waits for the poller to say the socket
    /// drained. Once a closing connection's last answer is out, it lingers.
    func flush(_ state: inout State) {
        while state.written < state.output.count {
            let start = state.written
            let sent = state.output.withUnsafeBytes {
                send(fd, $0.baseAddress! + start, $0.count - start, sendFlags)
            }
            if sent > 0 {
                state.written += sent
                state.lastActivity = .now
                continue
            }
            if sent < 0, errno == EINTR { continue }
            if sent < 0, errno == EAGAIN || errno == EWOULDBLOCK { return }
            closeNow(&state)
            return
        }
        state.output.removeAll(keepingCapacity: state.output.capacity <= 1 << 16)
        state.written = 0
        if case .finishing = state.phase { linger(&state) }
    }

    func linger(_ state: inout State) {
        _ = shutdown(fd, Int32(SHUT_WR))
        if state.peerClosed {
            closeNow(&state)
            return
        }
        state.phase = .lingering(until: .now + .seconds(Self.lingerSeconds))
        state.input = []
        state.consumed = 0
    }

    func closeNow(_ state: inout State) {
        if case .closed = state.phase { return }
        state.phase = .closed
        loop.poller.remove(fd)
        close(fd)
        if state.counted {
            state.counted = false
            core.inFlight.subtract(1, ordering: .relaxed)
        }
        state.request = nil
        state.input = []
        state.output = []
        core.release(address)
        loop.forget(id)
    }

    func compact(_ state: inout State) {
        if state.consumed == state.input.count {
            state.input.removeAll(keepingCapacity: state.input.capacity <= 1 << 16)
            state.consumed = 0
        } else if state.consumed > 1 << 15 {
            state.input.removeFirst(state.consumed)
            state.consumed = 0
        }
    }

    /// Watches for what the connection waits for: input unless the client is done or too much is
    /// unread, and the socket draining while an answer is only partly written.
    func updateInterest(_ state: inout State) {
        let read: Bool
        switch state.phase {
        case .closed: return
        case .lingering: read = !state.peerClosed
        default: read = !state.peerClosed && state.input.count - state.consumed <= inputCap
        }
        let write = state.written < state.output.count
        guard read != state.reading || write != state.writing else { return }
        state.reading = read
        state.writing = write
        loop.poller.modify(fd, id: id, read: read, write: write)
    }
}
