import CMicroHTTPD
import Foundation

/// The running libmicrohttpd daemon's pointer.
struct DaemonHandle: @unchecked Sendable {
    let pointer: OpaquePointer
}

/// Starts libmicrohttpd with Tern's options on an already-listening socket.
enum MHDDaemon {
    static func start(
        socket: ListeningSocket, configuration: HTTPServer.Configuration, core: UnsafeMutableRawPointer
    ) throws(HTTPServerError) -> DaemonHandle {
        // MHD's per-connection memory pool holds the request head and the read/write buffers;
        // it is sized so that our own 431 (with a JSON body) answers first.
        let memoryLimit = max(32 << 10, configuration.maxHeaderBytes * 2 + (16 << 10))
        // The front door accepts and hands connections over (MHD_add_connection): MHD has no
        // listening socket of its own, and is woken when one is added.
        var options: [MHD_OptionItem] = [
            MHD_OptionItem(
                option: .CONNECTION_TIMEOUT, value: configuration.connectionTimeoutSeconds, ptr_value: nil),
            MHD_OptionItem(option: .CONNECTION_MEMORY_LIMIT, value: memoryLimit, ptr_value: nil),
            MHD_OptionItem(option: .CONNECTION_LIMIT, value: configuration.maxConnections, ptr_value: nil),
            MHD_OptionItem(
                option: .PER_IP_CONNECTION_LIMIT, value: configuration.maxConnectionsPerAddress, ptr_value: nil),
            tern_mhd_option_notify_completed(
                { cls, connection, slot, _ in
                    guard let cls else { return }
                    Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue().completed(
                        connection: connection, slot: slot)
                }, core),
            tern_mhd_option_notify_connection(
                { cls, connection, _, event in
                    guard let cls, let connection else { return }
                    let heads = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue().heads
                    // MHD_CONNECTION_NOTIFY_STARTED is 0, CLOSED 1.
                    if event.rawValue == 0 {
                        heads.opened(connection)
                    } else {
                        heads.closed(connection)
                    }
                }, core),
        ]
        if configuration.threads > 1 {
            options.append(
                MHD_OptionItem(option: .THREAD_POOL_SIZE, value: configuration.threads, ptr_value: nil))
        }
        options.append(MHD_OptionItem(option: .END, value: 0, ptr_value: nil))

        #if os(Linux)
            let polling = MHD_USE_EPOLL.rawValue
        #else
            let polling = MHD_USE_AUTO.rawValue
        #endif
        let flags =
            MHD_USE_INTERNAL_POLLING_THREAD.rawValue | polling | MHD_ALLOW_SUSPEND_RESUME.rawValue
            | MHD_USE_NO_LISTEN_SOCKET.rawValue | MHD_USE_ITC.rawValue
        let daemon = tern_mhd_start_daemon(
            flags, 0,
            { cls, connection, url, method, version, upload, uploadSize, slot in
                guard let cls, let connection, let uploadSize, let slot else { return .NO }
                return Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue().access(
                    connection: connection, url: url, method: method, version: version, upload: upload,
                    uploadSize: uploadSize, slot: slot)
            }, core, &options)
        guard let daemon else {
            throw HTTPServerError(
                "libmicrohttpd could not start on \(configuration.host):\(socket.port) with \(configuration.threads) "
                    + "threads (check the open-file limit, ulimit -n, and the thread count)")
        }
        return DaemonHandle(pointer: daemon)
    }
}
