import Foundation
import Synchronization

/// An HTTP/1.1 server of its own: a few event-loop threads (epoll on Linux, poll elsewhere) over
/// non-blocking sockets, keep-alive and pipelining (answers in order), `Content-Length` and
/// chunked bodies, body and header limits, deadlines for heads and bodies, an idle timeout,
/// connection caps, and an async handler.
///
/// Every request head on every connection is read by the same RFC 9112 rules; what breaks them is
/// answered through `errorResponse` and the connection closed. A whole request runs its handler in
/// a `Task` of its own, so a slow handler holds no loop thread, and that task writes its answer to
/// the socket itself; only what the socket cannot take at once is left to the loop.
///
/// ```swift
/// let server = try HTTPServer(configuration: .init(port: 0), handler: HTTPHandlerFunction { request in
///     .json(200, Data(#"{"error":0}"#.utf8))
/// })
/// try server.start()
/// print("listening on \(server.port)")
/// server.stop()
/// ```
public final class HTTPServer: Sendable {
    /// Words the errors the server answers itself (the framing errors: 400, 413, 414, 431, 501 and
    /// 505; 408 for a late body, a path that is not UTF-8, 503 while stopping, 500 for a handler's
    /// invalid status): a status and a reason in, the answer out.
    /// Plain text unless the application gives its own (Tern's server answers its JSON envelope).
    public typealias ErrorResponse = @Sendable (_ status: Int, _ reason: String) -> HTTPResponse

    /// The server's knobs; the defaults run.
    public struct Configuration: Sendable {
        /// The IPv4 address to bind (`"0.0.0.0"` for every interface).
        public var host: String = "127.0.0.1"
        /// The port; 0 picks a free one (read it back from `HTTPServer.port`).
        public var port: Int = 8080
        /// Event-loop threads: each accepts from the listening socket and reads and writes the
        /// connections it accepted. Handlers do not run on them (they run as tasks), so one or two
        /// per core is plenty.
        public var threads: Int = 8
        /// Larger request bodies are answered 413 (worded by the server's `errorResponse`).
        public var maxBodyBytes: Int = 1 << 20
        /// Connections that send and receive nothing for this many seconds, while no handler runs for
        /// them, are closed (0: never).
        public var connectionTimeoutSeconds: Int = 30
        /// A larger request head is answered 431 (a request line alone longer than this, 414), worded
        /// by the server's `errorResponse`; so is a chunked body's trailer section past it.
        public var maxHeaderBytes: Int = 16 << 10
        /// At most this many connections at once; more are closed as they are accepted.
        public var maxConnections: Int = 4096
        /// At most this many connections at once from one client address (0: no cap); more are closed
        /// as they are accepted, so one client cannot take every slot under `maxConnections`.
        public var maxConnectionsPerAddress: Int = 256
        /// A request's head (request line and headers) must be complete within this many seconds of
        /// the connection opening or of the previous answer, however slowly it trickles in; past
        /// that the connection is closed (0: no deadline beyond the idle `connectionTimeoutSeconds`).
        public var headTimeoutSeconds: Int = 30
        /// A request's body must be complete within this many seconds of its head, however slowly
        /// it trickles in; past that the client gets a 408 and the connection closes (0: no deadline
        /// beyond the idle `connectionTimeoutSeconds`).
        public var bodyTimeoutSeconds: Int = 60
        /// How long `stop()` waits for requests in flight before answering the rest 503.
        public var shutdownGraceSeconds: Double = 10

        public init(
            host: String = "127.0.0.1", port: Int = 8080, threads: Int = 8, maxBodyBytes: Int = 1 << 20,
            connectionTimeoutSeconds: Int = 30, maxHeaderBytes: Int = 16 << 10
        ) {
            self.host = host
            self.port = port
            self.threads = threads
            self.maxBodyBytes = maxBodyBytes
            self.connectionTimeoutSeconds = connectionTimeoutSeconds
            self.maxHeaderBytes = maxHeaderBytes
        }
    }

    private enum Lifecycle {
        case bound(ListeningSocket)
        case running([EventLoop], ListeningSocket)
        case stopped
    }

    /// The configuration the server was created with.
    public let configuration: Configuration
    /// The bound port: the configured one, or the one picked when `configuration.port` is 0.
    public let port: Int
    private let core: ServerCore
    private let lifecycle: Mutex<Lifecycle>

    /// Validates the configuration and binds the listening socket (so a port in use fails here).
    /// `errorResponse` words the errors the server answers without asking `handler`.
    /// - Throws: `HTTPServerError` with the reason, e.g. "port 8080 on 127.0.0.1 is in use by another process".
    public init(
        configuration: Configuration, handler: any HTTPHandler,
        errorResponse: @escaping ErrorResponse = HTTPResponse.plainError
    ) throws {
        try Self.validate(configuration)
        let socket = try ListeningSocket(host: configuration.host, port: configuration.port)
        self.configuration = configuration
        self.port = socket.port
        self.core = ServerCore(
            handler: handler, errorResponse: errorResponse,
            limits: ServerCore.Limits(
                maxBodyBytes: configuration.maxBodyBytes, maxHeaderBytes: configuration.maxHeaderBytes,
                headSeconds: configuration.headTimeoutSeconds, bodySeconds: configuration.bodyTimeoutSeconds,
                idleSeconds: configuration.connectionTimeoutSeconds, maxConnections: configuration.maxConnections,
                maxPerAddress: configuration.maxConnectionsPerAddress))
        self.lifecycle = Mutex(.bound(socket))
    }

    deinit {
        stop()
    }

    /// Starts serving on the bound socket.
    /// - Throws: `HTTPServerError` when already started, stopped, or an event loop cannot be made.
    public func start() throws {
        try lifecycle.withLock { (state: inout Lifecycle) throws(HTTPServerError) in
            switch state {
            case .running: throw HTTPServerError("the server is already running on port \(port)")
            case .stopped: throw HTTPServerError("the server was stopped; create a new one to serve again")
            case .bound(let socket):
                var loops: [EventLoop] = []
                for _ in 0..<configuration.threads {
                    loops.append(try EventLoop(core: core, listening: socket.descriptor))
                }
                state = .running(loops, socket)
                core.serve(on: loops)
                for loop in loops { loop.start() }
            }
        }
    }

    /// How many connections each loop serves now (tests: they are shared out in turn).
    var connectionsPerLoop: [Int] {
        lifecycle.withLock { state in
            guard case .running(let loops, _) = state else { return [] }
            return loops.map { $0.open.count }
        }
    }

    /// True once `stop()` began: answers from then on close their connections.
    var isStopping: Bool { core.stopping.load(ordering: .relaxed) }

    /// Stops gracefully: stops accepting, lets requests in flight finish (up to
    /// `shutdownGraceSeconds`, then answers them 503), closes every connection. Idempotent; blocks
    /// the calling thread until done.
    public func stop() {
        let taken = lifecycle.withLock { state -> ([EventLoop], ListeningSocket)? in
            defer { state = .stopped }
            switch state {
            case .bound(let socket):
                socket.release()
                return nil
            case .running(let loops, let socket): return (loops, socket)
            case .stopped: return nil
            }
        }
        guard let (loops, socket) = taken else { return }
        // No new connections; answers from now on close theirs, and idle connections are closed.
        core.stopping.store(true, ordering: .relaxed)
        for loop in loops { loop.stopAccepting() }
        let deadline = Date().addingTimeInterval(configuration.shutdownGraceSeconds)
        while core.inFlight.load(ordering: .relaxed) > 0, Date() < deadline {
            usleep(2_000)
        }
        core.forcing.store(true, ordering: .relaxed)
        for loop in loops {
            for connection in loop.open { connection.abandon() }
        }
        for loop in loops { loop.stop() }
        core.serve(on: [])
        socket.release()
    }

    private static func validate(_ configuration: Configuration) throws(HTTPServerError) {
        guard configuration.threads >= 1 else {
            throw HTTPServerError("threads must be at least 1, not \(configuration.threads)")
        }
        guard configuration.maxBodyBytes >= 0 else {
            throw HTTPServerError("maxBodyBytes must not be negative, not \(configuration.maxBodyBytes)")
        }
        guard configuration.maxHeaderBytes >= 1024 else {
            throw HTTPServerError("maxHeaderBytes must be at least 1024, not \(configuration.maxHeaderBytes)")
        }
        guard configuration.connectionTimeoutSeconds >= 0 else {
            throw HTTPServerError(
                "connectionTimeoutSeconds must not be negative, not \(configuration.connectionTimeoutSeconds)")
        }
        guard configuration.maxConnections >= 1 else {
            throw HTTPServerError("maxConnections must be at least 1, not \(configuration.maxConnections)")
        }
        guard configuration.maxConnectionsPerAddress >= 0 else {
            throw HTTPServerError(
                "maxConnectionsPerAddress must not be negative, not \(configuration.maxConnectionsPerAddress)")
        }
        guard configuration.bodyTimeoutSeconds >= 0 else {
            throw HTTPServerError("bodyTimeoutSeconds must not be negative, not \(configuration.bodyTimeoutSeconds)")
        }
        guard configuration.headTimeoutSeconds >= 0 else {
            throw HTTPServerError("headTimeoutSeconds must not be negative, not \(configuration.headTimeoutSeconds)")
        }
    }
}
