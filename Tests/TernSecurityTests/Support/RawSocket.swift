import Foundation

#if canImport(Glibc)
    import Glibc
    private let streamSocket = Int32(SOCK_STREAM.rawValue)
#elseif canImport(Darwin)
    import Darwin
    private let streamSocket = SOCK_STREAM
#endif

/// A TCP connection that sends exactly the bytes a test writes (what URLSession would never send)
/// and reads whatever comes back until the server closes or a quiet second passes. Blocking calls
/// run on a Dispatch queue, never on Swift's cooperative pool.
final class RawSocket: @unchecked Sendable {
    /// What came back: the bytes, and whether the server closed the connection.
    struct Reply: Sendable {
        let bytes: Data
        let closed: Bool
        var text: String { String(decoding: bytes, as: UTF8.self) }
        /// The first status line's code, or 0.
        var status: Int {
            let line = text.prefix { $0 != "\r" }
            let parts = line.split(separator: " ")
            return parts.count >= 2 ? Int(parts[1]) ?? 0 : 0
        }
        /// How many answers (status lines) came back.
        var answers: Int {
            // A status line starts the stream or follows the previous answer's JSON body.
            let pieces = text.components(separatedBy: "HTTP/1.1 ")
            return pieces.enumerated().dropFirst().filter { index, piece in
                let before = pieces[index - 1]
                return piece.prefix(4).allSatisfy { $0.isNumber || $0 == " " }
                    && (before.isEmpty || before.hasSuffix("}") || before.hasSuffix("\n"))
            }.count
        }
        /// The first answer's body.
        var body: String {
            guard let range = text.range(of: "\r\n\r\n") else { return "" }
            return String(text[range.upperBound...])
        }
    }

    private let fd: Int32
    private let queue = DispatchQueue(label: "raw-socket")

    init(port: Int) throws {
        let descriptor = socket(AF_INET, streamSocket, 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            close(descriptor)
            throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "connect to \(port) failed"])
        }
        fd = descriptor
    }

    deinit {
        close(fd)
    }

    /// Sends `bytes`; false when the server has already closed.
    @discardableResult
    func send(_ bytes: Data) async -> Bool {
        await onQueue {
            bytes.withUnsafeBytes { raw in
                var offset = 0
                while offset < raw.count {
                    #if canImport(Glibc)
                        let sent = Glibc.send(
                            self.fd, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                    #else
                        let sent = Darwin.send(self.fd, raw.baseAddress! + offset, raw.count - offset, 0)
                    #endif
                    if sent <= 0 { return false }
                    offset += sent
                }
                return true
            }
        }
    }

    @discardableResult
    func send(_ text: String) async -> Bool {
        await send(Data(text.utf8))
    }

    /// Reads until the server closes, or until nothing arrives for `quiet` seconds.
    func read(quiet: Int = 2) async -> Reply {
        await onQueue {
            var timeout = timeval(tv_sec: quiet, tv_usec: 0)
            setsockopt(self.fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            var data = Data()
            var chunk = [UInt8](repeating: 0, count: 65536)
            while true {
                let count = recv(self.fd, &chunk, chunk.count, 0)
                if count > 0 {
                    data.append(contentsOf: chunk[0..<count])
                } else {
                    // 0: closed; -1 with EAGAIN: quiet; ECONNRESET: closed.
                    return Reply(bytes: data, closed: count == 0 || errno == ECONNRESET)
                }
            }
        }
    }

    private func onQueue<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in queue.async { continuation.resume(returning: body()) } }
    }
}
