import Foundation

#if canImport(Glibc)
    import Glibc
    private let streamSocket = Int32(SOCK_STREAM.rawValue)
#elseif canImport(Darwin)
    import Darwin
    private let streamSocket = SOCK_STREAM
#endif

/// A parsed HTTP/1.1 answer read off a raw socket.
struct RawResponse: Sendable {
    var status: Int
    var headers: [String: String]  // keys lowercased
    var body: Data

    var text: String { String(decoding: body, as: UTF8.self) }
}

struct RawConnectionError: Error, CustomStringConvertible {
    let description: String
}

/// A TCP connection to the server under test, for what URLSession hides: several requests on one
/// connection, chunked uploads, malformed bytes. Blocking socket calls run on a Dispatch queue,
/// never on Swift's cooperative pool (which the server's handlers need).
final class RawConnection: @unchecked Sendable {
    private let fd: Int32
    private var buffer = Data()
    private let queue = DispatchQueue(label: "raw-connection")

    init(port: Int) throws {
        // The descriptor becomes the object's only once connected: an initializer that throws after
        // every property is set still runs deinit, which would close it a second time, maybe after
        // the number was given to another test's socket.
        let descriptor = socket(AF_INET, streamSocket, 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var timeout = timeval(tv_sec: 120, tv_usec: 0)  // a congested test run resumes handlers late
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            throw RawConnectionError(description: "connect to port \(port): \(reason)")
        }
        fd = descriptor
    }

    deinit {
        close(fd)
    }

    func send(_ text: String) async throws {
        try await send(Data(text.utf8))
    }

    func send(_ data: Data) async throws {
        try await onQueue { try self.sendBlocking(data) }
    }

    /// Reads one answer: the head, then `Content-Length` bytes, or to the end when there is none.
    func readResponse() async throws -> RawResponse {
        try await onQueue { try self.readResponseBlocking() }
    }

    /// Reads one head only (an interim `100 Continue`, say) and returns it as text.
    func readHead() async throws -> String {
        try await onQueue {
            let separator = Data("\r\n\r\n".utf8)
            while self.buffer.range(of: separator) == nil {
                guard try self.fill() else { throw RawConnectionError(description: "connection closed before a head") }
            }
            let end = self.buffer.range(of: separator)!
            defer { self.buffer = Data(self.buffer[end.upperBound...]) }
            return String(decoding: self.buffer[self.buffer.startIndex..<end.lowerBound], as: UTF8.self)
        }
    }

    /// True when the server closed the connection (read returns 0 or fails).
    func isClosedByPeer() async -> Bool {
        (try? await onQueue { try self.fill() }) == false
    }

    private func onQueue<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try body() }) }
        }
    }

    private func sendBlocking(_ data: Data) throws {
        var offset = 0
        while offset < data.count {
            let sent = data.withUnsafeBytes { bytes in
                rawSend(fd, bytes.baseAddress! + offset, data.count - offset)
            }
            guard sent > 0 else {
                throw RawConnectionError(description: "send failed: \(String(cString: strerror(errno)))")
            }
            offset += sent
        }
    }

    /// Reads more bytes into the buffer; false at end of stream.
    private func fill() throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let count = recv(fd, &chunk, chunk.count, 0)
        if count < 0 { throw RawConnectionError(description: "recv failed: \(String(cString: strerror(errno)))") }
        buffer.append(contentsOf: chunk[0..<count])
        return count > 0
    }

    private func readResponseBlocking() throws -> RawResponse {
        let separator = Data("\r\n\r\n".utf8)
        while buffer.range(of: separator) == nil {
            guard try fill() else { throw RawConnectionError(description: "connection closed before an answer") }
        }
        let end = buffer.range(of: separator)!
        let head = String(decoding: buffer[buffer.startIndex..<end.lowerBound], as: UTF8.self)
        buffer = Data(buffer[end.upperBound...])
        var lines = head.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else {
            throw RawConnectionError(description: "bad status line in \(head)")
        }
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                in: .whitespaces)
        }
        if let length = headers["content-length"].flatMap(Int.init) {
            while buffer.count < length {
                guard try fill() else { throw RawConnectionError(description: "connection closed inside a body") }
            }
            let body = Data(buffer.prefix(length))
            buffer = Data(buffer.dropFirst(length))
            return RawResponse(status: status, headers: headers, body: body)
        }
        while try fill() {}
        defer { buffer = Data() }
        return RawResponse(status: status, headers: headers, body: buffer)
    }
}

private func rawSend(_ fd: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    #if canImport(Glibc)
        return send(fd, bytes, count, Int32(MSG_NOSIGNAL))
    #else
        return send(fd, bytes, count, 0)
    #endif
}
