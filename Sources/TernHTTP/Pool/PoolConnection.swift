import CNGHTTP2
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One connection of a pool, served by the pool's loop thread (`PoolLoop`): each round it takes
/// requests from the pool's queue as streams free up, lets nghttp2 turn all of them into frames,
/// writes those frames in large TLS writes, and feeds what it reads back to nghttp2, whose
/// callbacks complete the exchanges.
final class PoolConnection {
    /// One request in flight.
    final class Stream {
        let exchange: PoolExchange
        var bodyOffset = 0
        var status = 0
        var headers: [(String, String)] = []
        var body = Data()
        /// nghttp2 has put the request's HEADERS on the wire: the peer may have seen it.
        var sent = false

        init(_ exchange: PoolExchange) {
            self.exchange = exchange
        }
    }

    let handle: PoolConnectionHandle
    let shared: PoolShared
    let tls: TLSStream
    private(set) var session: OpaquePointer?
    var streams: [Int32: Stream] = [:]
    /// Exchanges nghttp2 gave up on before sending (refused, or past the peer's GOAWAY).
    var unsent: [PoolExchange] = []
    var goawayReceived = false
    var peerSettingsSeen = false
    var roomChanged = false
    private var output: [UInt8] = []
    private var outputSent = 0
    private let input = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 << 10, alignment: 16)
    private var progressed = false
    private var writeBlocked = false
    private var lastCancelGeneration = 0
    private var nextTimeoutScan: UInt64 = 0
    private var lastActivity = DispatchTime.now().uptimeNanoseconds
    private var fields: [nghttp2_nv] = []
    /// Why the connection ended, when it failed.
    private var failure: String?
    /// The peer must send its SETTINGS by then (the connect timeout), or the connection counts as
    /// never set up.
    private let settingsDeadline: UInt64

    static let idleTimeout: UInt64 = 300_000_000_000
    private static let outputHighWater = 256 << 10

    init(handle: PoolConnectionHandle, shared: PoolShared, tls: TLSStream) {
        self.handle = handle
        self.shared = shared
        self.tls = tls
        settingsDeadline =
            DispatchTime.now().uptimeNanoseconds &+ UInt64(shared.configuration.connectTimeout * 1e9)
        output.reserveCapacity(Self.outputHighWater + (16 << 10))
    }

    deinit {
        if let session { nghttp2_session_del(session) }
        input.deallocate()
    }

    /// Starts the HTTP/2 session on the TLS connection; on failure the connection is finished
    /// with the reason.
    func start() -> Bool {
        do {
            try startSession()
            return true
        } catch {
            failure = error.reason
            return false
        }
    }

    private func startSession() throws(HTTP2ClientError) {
        var created: OpaquePointer?
        let callbacks = PoolCallbacks.make()
        defer { nghttp2_session_callbacks_del(callbacks) }
        var options: OpaquePointer?
        nghttp2_option_new(&options)
        defer { nghttp2_option_del(options) }
        // The pool checks the fields it sends itself (`PoolExchange.Prepared`) and reads only
        // :status of the answers; nghttp2's second check of every field is work done twice.
        nghttp2_option_set_no_http_messaging(options, 1)
        let result = nghttp2_session_client_new2(
            &created, callbacks, Unmanaged.passUnretained(self).toOpaque(), options)
        guard result == 0, let created else {
            throw HTTP2ClientError(.transport, "nghttp2 could not start a session: \(Self.text(result))")
        }
        session = created
        var settings = [
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_ENABLE_PUSH.rawValue), value: 0),
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_NO_RFC7540_PRIORITIES.rawValue), value: 1),
        ]
        nghttp2_submit_settings(created, UInt8(NGHTTP2_FLAG_NONE.rawValue), &settings, settings.count)
    }

    /// One round: cancellations, new requests, deadlines, writes, reads. Says whether anything
    /// happened and whether the connection has ended (then the loop calls `finish`).
    func step() -> (progressed: Bool, ended: Bool) {
        progressed = false
        cancelAsked()
        if !goawayReceived, peerSettingsSeen { takeRequests() }
        expire()
        if !peerSettingsSeen, failure != nil { return (true, true) }
        guard flush(), receive() else { return (true, true) }
        if !unsent.isEmpty {
            shared.giveBack(unsent)
            unsent.removeAll()
        }
        handle.active.store(streams.count, ordering: .relaxed)
        if roomChanged {
            roomChanged = false
            shared.roomChanged()
        }
        if goawayReceived, streams.isEmpty, output.count == outputSent { return (true, true) }
        if let session, nghttp2_session_want_read(session) == 0, nghttp2_session_want_write(session) == 0 {
            return (true, true)
        }
        if streams.isEmpty, DispatchTime.now().uptimeNanoseconds - lastActivity > Self.idleTimeout {
            // Idle for long: close rather than keep a connection APNs may drop silently.
            handle.phase = .draining
            return (true, true)
        }
        return (progressed, false)
    }

    /// Takes as many waiting requests as the connection has free streams.
    private func takeRequests() {
        let free = handle.limit - streams.count
        guard free > 0 else { return }
        let taken = shared.take(free, now: DispatchTime.now().uptimeNanoseconds)
        guard !taken.isEmpty else { return }
        progressed = true
        for (index, exchange) in taken.enumerated() where !submit(exchange) {
            // Stream ids ran out: this connection is done; the rest go to another.
            handle.phase = .draining
            goawayReceived = true
            unsent.append(contentsOf: taken[index...])
            break
        }
        handle.active.store(streams.count, ordering: .relaxed)
    }

    /// Hands one request to nghttp2; false when the connection can open no further stream.
    private func submit(_ exchange: PoolExchange) -> Bool {
        guard let session else { return false }
        // Read in place: a local copy of `exchange.prepared` retained and released its buffers and
        // strings for every request (4 % of a send's reference counting).
        let streamID: Int32 = exchange.prepared.block.bytes.withUnsafeBufferPointer { bytes in
            let base = UnsafeMutablePointer(mutating: bytes.baseAddress!)
            fields.removeAll(keepingCapacity: true)
            for field in exchange.prepared.block.fields {
                fields.append(
                    nghttp2_nv(
                        name: base + field.nameStart, value: base + field.valueStart, namelen: field.nameCount,
                        valuelen: field.valueCount,
                        flags: UInt8(
                            field.unindexed ? NGHTTP2_NV_FLAG_NO_INDEX.rawValue : NGHTTP2_NV_FLAG_NONE.rawValue)
                    ))
            }
            if exchange.prepared.body.isEmpty {
                return nghttp2_submit_request(session, nil, fields, fields.count, nil, nil)
            }
            var provider = nghttp2_data_provider(
                source: nghttp2_data_source(ptr: nil), read_callback: PoolCallbacks.readBody)
            return nghttp2_submit_request(session, nil, fields, fields.count, &provider, nil)
        }
        if streamID == NGHTTP2_ERR_STREAM_ID_NOT_AVAILABLE.rawValue { return false }
        guard streamID > 0 else {
            exchange.complete(
                .failure(
                    HTTP2ClientError(
                        .invalidRequest,
                        "\(exchange.prepared.summary): nghttp2 refused the request: \(Self.text(streamID))")))
            return true
        }
        streams[streamID] = Stream(exchange)
        return true
    }

    /// Resets the streams whose requests were cancelled since the last look.
    private func cancelAsked() {
        let generation = shared.cancelGeneration.load(ordering: .sequentiallyConsistent)
        guard generation != lastCancelGeneration else { return }
        lastCancelGeneration = generation
        let cancelled = Set(shared.takeCancelled(among: streams.values.map(\.exchange.id)))
        guard !cancelled.isEmpty else { return }
        for (streamID, stream) in streams where cancelled.contains(stream.exchange.id) {
            end(streamID, code: NGHTTP2_CANCEL.rawValue)
            stream.exchange.complete(.failure(CancellationError()))
        }
    }

    /// Fails the streams past their deadline (looked at every 20 ms).
    private func expire() {
        let now = DispatchTime.now().uptimeNanoseconds
        guard now >= nextTimeoutScan || (!peerSettingsSeen && now >= settingsDeadline) else { return }
        nextTimeoutScan = now + 20_000_000
        if !peerSettingsSeen, now > settingsDeadline {
            failure = "no SETTINGS frame from the peer within the connect timeout"
        }
        for (streamID, stream) in streams where stream.exchange.deadline <= now {
            end(streamID, code: NGHTTP2_CANCEL.rawValue)
            stream.exchange.complete(.failure(stream.exchange.timedOut()))
        }
    }

    /// Forgets a stream the connection gave up on, and resets it at the peer.
    func end(_ streamID: Int32, code: UInt32) {
        streams.removeValue(forKey: streamID)
        progressed = true
        if let session { nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), streamID, code) }
    }

    /// Writes what nghttp2 has to send, as few TLS records as it fits in. False when the
    /// connection broke.
    private func flush() -> Bool {
        guard let session else { return false }
        writeBlocked = false
        while true {
            while output.count - outputSent < Self.outputHighWater {
                var data: UnsafePointer<UInt8>?
                let count = nghttp2_session_mem_send(session, &data)
                if count < 0 {
                    failure = "HTTP/2 error: \(Self.text(Int32(clamping: count)))"
                    return false
                }
                guard count > 0, let data else { break }
                output.append(contentsOf: UnsafeBufferPointer(start: data, count: count))
            }
            guard outputSent < output.count else {
                output.removeAll(keepingCapacity: true)
                outputSent = 0
                return true
            }
            let result = output.withUnsafeBytes { tls.write(UnsafeRawBufferPointer(rebasing: $0[outputSent...])) }
            switch result {
            case .done(let count):
                outputSent += count
                progressed = true
                lastActivity = DispatchTime.now().uptimeNanoseconds
            case .wantWrite, .wantRead:
                writeBlocked = true
                return true
            case .closed:
                failure = "the peer closed the connection"
                return false
            case .failed(let reason):
                failure = reason
                return false
            }
        }
    }

    /// Reads what has arrived and feeds it to nghttp2. False when the connection ended.
    private func receive() -> Bool {
        guard let session else { return false }
        for _ in 0..<8 {
            switch tls.read(into: input) {
            case .done(let count):
                progressed = true
                lastActivity = DispatchTime.now().uptimeNanoseconds
                let used = nghttp2_session_mem_recv(
                    session, input.baseAddress?.assumingMemoryBound(to: UInt8.self), count)
                if used < 0 {
                    failure = "HTTP/2 error in what the peer sent: \(Self.text(Int32(clamping: used)))"
                    return false
                }
            case .wantRead:
                return true
            case .wantWrite:
                writeBlocked = true
                return true
            case .closed:
                if !streams.isEmpty || !goawayReceived { failure = "the peer closed the connection" }
                return false
            case .failed(let reason):
                failure = reason
                return false
            }
        }
        return true
    }

    /// What `poll` waits for on this connection's socket.
    var pollRequest: pollfd {
        let wantsOutput = writeBlocked || output.count > outputSent
        return pollfd(fd: tls.fd, events: Int16(POLLIN) | (wantsOutput ? Int16(POLLOUT) : 0), revents: 0)
    }

    /// When this connection next has something to do without the socket: a stream's deadline,
    /// the peer's SETTINGS overdue, the idle timeout.
    var nextDeadline: UInt64 {
        var earliest = streams.isEmpty ? lastActivity &+ Self.idleTimeout : UInt64.max
        if !peerSettingsSeen { earliest = min(earliest, settingsDeadline) }
        for stream in streams.values where stream.exchange.deadline < earliest { earliest = stream.exchange.deadline }
        return earliest
    }

    /// After its last round: fail what may have reached the peer, hand back what never left.
    func finish() {
        handle.phase = .draining
        let closedByPool = shared.isClosed
        let reason = failure ?? "the connection closed"
        for stream in streams.values {
            if closedByPool {
                stream.exchange.complete(
                    .failure(HTTP2ClientError(.shutDown, "the HTTP/2 connection pool was shut down during the request"))
                )
            } else if stream.sent {
                stream.exchange.complete(
                    .failure(
                        HTTP2ClientError(
                            .transport,
                            "\(stream.exchange.prepared.summary): the connection to \(shared.endpoint.host) ended before the answer: \(reason)"
                        )))
            } else {
                unsent.append(stream.exchange)
            }
        }
        streams.removeAll()
        handle.active.store(0, ordering: .relaxed)
        shared.giveBack(unsent)
        unsent.removeAll()
        // Ending before the peer's SETTINGS means the connection never worked: with no other
        // connection, what waits fails with the reason rather than trying again and again.
        shared.ended(
            handle,
            setUpError: peerSettingsSeen
                ? nil
                : HTTP2ClientError(
                    .connect, "HTTP/2 with \(shared.endpoint.host):\(shared.endpoint.port) did not start: \(reason)"))
    }

    static func text(_ code: Int32) -> String {
        String(cString: nghttp2_strerror(code))
    }
}
