import CMicroHTTPD
import Foundation
import Synchronization

/// An HTTP/1.1 server over libmicrohttpd: a thread pool polling with epoll (Linux), keep-alive,
/// body and header limits, a connection timeout, and an async handler.
///
/// A request's connection is suspended while its handler runs (MHD suspend/resume), so a slow
/// handler holds no MHD thread: the pool keeps serving other connections.
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
    /// Words the errors the server answers itself (413, 431, a path that is not UTF-8, 503 while
    /// stopping, 500 for a handler's invalid status): a status and a reason in, the answer out.
    /// Plain text unless the application gives its own (Tern's server answers its JSON envelope).
    public typealias ErrorResponse = @Sendable (_ status: Int, _ reason: String) -> HTTPResponse

    /// The server's knobs; the defaults run.
    public struct Configuration: Sendable {
        /// The IPv4 address to bind (`"0.0.0.0"` for every interface).
        public var host: String = "127.0.0.1"
        /// The port; 0 picks a free one (read it back from `HTTPServer.port`).
        public var port: Int = 8080
        /// libmicrohttpd's thread pool size.
        public var threads: Int = 8
        /// Larger request bodies are answered 413 (worded by the server's `errorResponse`).
        public var maxBodyBytes: Int = 1 << 20
        /// Idle connections are closed after this many seconds.
        public var connectionTimeoutSeconds: Int = 30
        /// Larger request headers are answered 431 (worded by the server's `errorResponse`; much
        /// larger ones by libmicrohttpd itself).
        public var maxHeaderBytes: Int = 16 << 10
        /// At most this many connections at once; more are refused by libmicrohttpd.
        public var maxConnections: Int = 4096
        /// At most this many connections at once from one client address (0: no cap); more are closed
        /// as they are accepted, so one client cannot take every slot under `maxConnections`.
        public var maxConnectionsPerAddress: Int = 256
        /// A request's head (request line and headers) must be complete within this many seconds of
        /// the connection opening or of the previous answer, however slowly it trickles in (0: no
        /// deadline beyond the idle `connectionTimeoutSeconds`).
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
        case running(DaemonHandle, ListeningSocket, FrontDoor)
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
            handler: handler, errorResponse: errorResponse, maxBodyBytes: configuration.maxBodyBytes,
            maxHeaderBytes: configuration.maxHeaderBytes, headTimeoutSeconds: configuration.headTimeoutSeconds,
            bodyTimeoutSeconds: configuration.bodyTimeoutSeconds)
        self.lifecycle = Mutex(.bound(socket))
    }

    deinit {
        stop()
    }

    /// Starts serving on the bound socket.
    /// - Throws: `HTTPServerError` when already started, stopped, or libmicrohttpd refuses to start.
    public func start() throws {
        try lifecycle.withLock { (state: inout Lifecycle) throws(HTTPServerError) in
            switch state {
            case .running: throw HTTPServerError("the server is already running on port \(port)")
            case .stopped: throw HTTPServerError("the server was stopped; create a new one to serve again")
            case .bound(let socket):
                let door = try FrontDoor(
                    listening: socket.descriptor,
                    limits: FrontDoor.Limits(
                        maxHeaderBytes: configuration.maxHeaderBytes, maxBodyBytes: configuration.maxBodyBytes,
                        // Without a head deadline, the idle timeout is what libmicrohttpd would apply.
                        headSeconds: configuration.headTimeoutSeconds > 0
                            ? configuration.headTimeoutSeconds : configuration.connectionTimeoutSeconds,
                        maxConnections: configuration.maxConnections,
                        maxPerAddress: configuration.maxConnectionsPerAddress),
                    errorResponse: core.errorResponse)
                let daemon = try MHDDaemon.start(
                    socket: socket, configuration: configuration, core: Unmanaged.passUnretained(core).toOpaque())
                state = .running(daemon, socket, door)
                core.heads.start()
                door.start(daemon: daemon)
            }
        }
    }

    /// Stops gracefully: stops accepting, lets requests in flight finish (up to
    /// `shutdownGraceSeconds`, then answers them 503), closes every connection. Idempotent; blocks
    /// the calling thread until done.
    public func stop() {
        let taken = lifecycle.withLock { state -> (DaemonHandle, ListeningSocket, FrontDoor)? in
            defer { state = .stopped }
            switch state {
            case .bound(let socket):
                socket.release()
                return nil
            case .running(let daemon, let socket, let door): return (daemon, socket, door)
            case .stopped: return nil
            }
        }
        guard let (daemon, socket, door) = taken else { return }
        core.tracker.withLock { $0.stopping = true }
        // No new connections: the front door (which owns the listening socket) stops accepting.
        door.stop()
        let deadline = Date().addingTimeInterval(configuration.shutdownGraceSeconds)
        while core.tracker.withLock({ $0.active > 0 }), Date() < deadline {
            usleep(2_000)
        }
        // MHD must not be stopped with a suspended connection: answer what still runs, and wait
        // until the daemon threads have queued those answers.
        while core.tracker.withLock({ !$0.handling.isEmpty }) {
            core.abandonHandlers()
            usleep(1_000)
        }
        MHD_stop_daemon(daemon.pointer)
        core.heads.stop()
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
