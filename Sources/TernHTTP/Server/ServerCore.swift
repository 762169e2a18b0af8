import CMicroHTTPD
import Foundation
import Synchronization

/// The state libmicrohttpd's callbacks share: the handler, the limits, and which requests are in
/// flight. Its address is the daemon's callback closure; `HTTPServer` keeps it alive until the
/// daemon has stopped.
final class ServerCore: Sendable {
    struct Tracker {
        /// Requests MHD has started and not yet reported complete.
        var active = 0
        /// Requests whose connection is suspended while the handler runs.
        var handling: [ObjectIdentifier: RequestContext] = [:]
        /// Set by stop(): answers carry `Connection: close`.
        var stopping = false
        /// Set when the grace period is over: handlers are answered 503 and no new one starts.
        var forcing = false
    }

    let handler: any HTTPHandler
    let errorResponse: HTTPServer.ErrorResponse
    let maxBodyBytes: Int
    let maxHeaderBytes: Int
    let tracker = Mutex(Tracker())
    let heads: HeadDeadlines

    init(
        handler: any HTTPHandler, errorResponse: @escaping HTTPServer.ErrorResponse, maxBodyBytes: Int,
        maxHeaderBytes: Int, headTimeoutSeconds: Int, bodyTimeoutSeconds: Int = 0
    ) {
        self.handler = handler
        self.errorResponse = errorResponse
        self.maxBodyBytes = maxBodyBytes
        self.maxHeaderBytes = maxHeaderBytes
        let late = errorResponse(
            408, "the request body did not arrive within \(bodyTimeoutSeconds) s of its head: send it at once")
        self.heads = HeadDeadlines(
            seconds: headTimeoutSeconds, bodySeconds: bodyTimeoutSeconds,
            bodyTimeout: HeadDeadlines.wire(late, reason: "Request Timeout"))
    }

    /// MHD's access handler: called once when the headers are in, once per piece of body, once when
    /// the body is complete, and once more after a resume.
    func access(
        connection: OpaquePointer, url: UnsafePointer<CChar>?, method: UnsafePointer<CChar>?,
        version: UnsafePointer<CChar>?, upload: UnsafePointer<CChar>?, uploadSize: UnsafeMutablePointer<Int>,
        slot: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    ) -> MHD_Result {
        guard let raw = slot.pointee else {
            let (context, repeated) = makeContext(connection: connection, url: url, method: method)
            slot.pointee = Unmanaged.passRetained(context).toOpaque()
            tracker.withLock { $0.active += 1 }
            heads.headReceived(connection)
            if let refusal = RequestFraming.check(
                version: version.map { String(cString: $0) } ?? "", headers: context.headers, repeated: repeated)
            {
                context.markResponded()
                return queue(errorResponse(refusal.status, refusal.reason), on: connection, close: true)
            }
            if let rejection = firstRejection(context, connection: connection) {
                context.markResponded()
                return queue(rejection, on: connection)
            }
            return .YES
        }
        let context = Unmanaged<RequestContext>.fromOpaque(raw).takeUnretainedValue()
        if uploadSize.pointee > 0 {
            let bytes = UnsafeRawBufferPointer(start: upload, count: uploadSize.pointee)
            uploadSize.pointee = 0
            switch context.append(bytes, limit: maxBodyBytes, dropLimit: max(maxBodyBytes, 1 << 20) * 4) {
            case .appended, .dropped:
                return .YES
            case .overLimit:
                let response = errorResponse(413, "request body is larger than \(maxBodyBytes) bytes")
                // MHD 0.9.75 accepts an answer only before or after the body; if it refuses one
                // mid-upload, the rest is dropped and the 413 goes out when the body ends.
                if queue(response, on: connection) == .YES {
                    context.markResponded()
                } else {
                    context.reject(with: response)
                }
                return .YES
            case .abort:
                return .NO
            }
        }
        heads.bodyReceived(connection)
        switch context.phase {
        case .receiving:
            return beginHandling(context, connection: connection)
        case .rejected(let response), .ready(let response):
            context.markResponded()
            tracker.withLock { _ = $0.handling.removeValue(forKey: ObjectIdentifier(context)) }
            return queue(response, on: connection)
        case .handling, .responded:
            return .YES
        }
    }

    /// MHD's request-completed callback: releases the context; the connection's next head is due.
    func completed(connection: OpaquePointer?, slot: UnsafeMutablePointer<UnsafeMutableRawPointer?>?) {
        if let connection { heads.answered(connection) }
        guard let slot, let raw = slot.pointee else { return }
        slot.pointee = nil
        let context = Unmanaged<RequestContext>.fromOpaque(raw).takeRetainedValue()
        tracker.withLock {
            $0.active -= 1
            $0.handling.removeValue(forKey: ObjectIdentifier(context))
        }
    }

    /// Answers 503 for every handler still running, so that their connections can be resumed and
    /// the daemon stopped; handlers that finish later are ignored.
    func abandonHandlers() {
        let running = tracker.withLock { tracker in
            tracker.forcing = true
            return Array(tracker.handling.values)
        }
        for context in running where context.complete(with: errorResponse(503, "server is shutting down")) {
            MHD_resume_connection(context.connection.pointer)
        }
    }

    private func beginHandling(_ context: RequestContext, connection: OpaquePointer) -> MHD_Result {
        guard let path = context.path else {
            context.markResponded()
            return queue(errorResponse(400, "request path is not valid UTF-8"), on: connection)
        }
        let admitted = tracker.withLock { tracker in
            guard !tracker.forcing else { return false }
            tracker.handling[ObjectIdentifier(context)] = context
            return true
        }
        guard admitted else {
            context.markResponded()
            return queue(errorResponse(503, "server is shutting down"), on: connection)
        }
        // Suspend before the task exists (and before the phase says so), so that every resume
        // follows its suspend.
        MHD_suspend_connection(connection)
        let request = context.beginHandling(path: path)
        let handler = handler
        Task {
            let response = await handler.handle(request)
            if context.complete(with: response) {
                MHD_resume_connection(context.connection.pointer)
            }
        }
        return .YES
    }

    private func firstRejection(_ context: RequestContext, connection: OpaquePointer) -> HTTPResponse? {
        let headerBytes = context.headers.reduce(context.method.utf8.count + (context.path?.utf8.count ?? 0)) {
            $0 + $1.key.utf8.count + $1.value.utf8.count + 4
        }
        if headerBytes > maxHeaderBytes {
            return errorResponse(431, "request headers are larger than \(maxHeaderBytes) bytes")
        }
        if let length = context.headers["content-length"], let declared = Int(length), declared > maxBodyBytes {
            return errorResponse(413, "request body is larger than \(maxBodyBytes) bytes")
        }
        return nil
    }

    private func makeContext(
        connection: OpaquePointer, url: UnsafePointer<CChar>?, method: UnsafePointer<CChar>?
    ) -> (RequestContext, repeated: Set<String>) {
        var address = [CChar](repeating: 0, count: 64)
        let known = tern_mhd_client_address(connection, &address, socklen_t(address.count)) == 0
        let headers = ConnectionValues.collectNoting(connection, kind: .HEADER_KIND, lowercasingKeys: true)
        let context = RequestContext(
            method: method.map { String(cString: $0) } ?? "",
            path: url.flatMap { String(validatingCString: $0) },
            query: ConnectionValues.collect(connection, kind: .GET_ARGUMENT_KIND),
            headers: headers.values,
            remoteAddress: known
                ? String(decoding: address.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : nil,
            connection: ConnectionHandle(pointer: connection))
        return (context, headers.repeated)
    }

    /// Queues `response`; with `close`, or while stopping, the connection closes after it.
    private func queue(_ response: HTTPResponse, on connection: OpaquePointer, close: Bool = false) -> MHD_Result {
        let closing = close || tracker.withLock { $0.stopping }
        return MHDResponse.queue(response, on: connection, closing: closing, errorResponse: errorResponse)
    }
}
