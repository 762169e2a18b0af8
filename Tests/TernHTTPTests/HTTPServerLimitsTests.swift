import Foundation
import Synchronization
import TernHTTP
import Testing

@Suite struct HTTPServerLimitsTests {
    /// Counts handler calls, to show that rejected requests never reach the handler.
    final class Counter: Sendable {
        let calls = Mutex(0)
    }

    func countingServer(_ counter: Counter, maxBody: Int) throws -> HTTPServer {
        try startServer(
            HTTPHandlerFunction { request in
                counter.calls.withLock { $0 += 1 }
                return .text(200, "\(request.body.count)")
            }, configure: { $0.maxBodyBytes = maxBody })
    }

    @Test func bodyOverTheLimitByContentLengthIs413InTheEnvelope() async throws {
        let counter = Counter()
        let server = try countingServer(counter, maxBody: 1024)
        defer { server.stop() }
        let (status, headers, body) = try await fetch(server, "/up", method: "POST", body: Data(count: 1025))
        #expect(status == 413)
        #expect(headers["content-type"] == "application/json")
        #expect(
            String(decoding: body, as: UTF8.self)
                == #"{"error":413,"error_text":"request body is larger than 1024 bytes","profile":null}"#)
        #expect(counter.calls.withLock { $0 } == 0)
    }

    @Test func bodyExactlyAtTheLimitIsAccepted() async throws {
        let counter = Counter()
        let server = try countingServer(counter, maxBody: 1024)
        defer { server.stop() }
        let (status, _, body) = try await fetch(server, "/up", method: "POST", body: Data(count: 1024))
        #expect(status == 200)
        #expect(String(decoding: body, as: UTF8.self) == "1024")
    }

    /// Only the headers are sent: the server answers from Content-Length alone. (Sending the body
    /// through URLSession raced the server's close: the client sometimes saw a broken pipe instead
    /// of the 413.)
    @Test func defaultLimitIsOneMebibyte() async throws {
        let server = try startServer(EchoHandler())
        defer { server.stop() }
        let connection = try RawConnection(port: server.port)
        try await connection.send("POST /up HTTP/1.1\r\nHost: x\r\nContent-Length: \((1 << 20) + 1)\r\n\r\n")
        let response = try await connection.readResponse()
        #expect(response.status == 413)
        #expect(response.text.contains("request body is larger than 1048576 bytes"))
    }

    /// A chunked body is answered 413 as soon as it passes the limit (never buffered past it), and
    /// the connection closes after the answer.
    @Test func streamedBodyOverTheLimitIs413() async throws {
        let counter = Counter()
        let server = try countingServer(counter, maxBody: 1000)
        defer { server.stop() }
        let connection = try RawConnection(port: server.port)
        let chunk = String(repeating: "a", count: 600)
        try await connection.send(
            "POST /stream HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "258\r\n\(chunk)\r\n258\r\n\(chunk)\r\n0\r\n\r\n")
        let response = try await connection.readResponse()
        #expect(response.status == 413)
        #expect(response.text == #"{"error":413,"error_text":"request body is larger than 1000 bytes","profile":null}"#)
        #expect(counter.calls.withLock { $0 } == 0)
    }

    @Test func endlessStreamPastTheLimitIsCutOff() async throws {
        let server = try startServer(EchoHandler(), configure: { $0.maxBodyBytes = 1024 })
        defer { server.stop() }
        let connection = try RawConnection(port: server.port)
        try await connection.send("POST /endless HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
        let chunk = "10000\r\n" + String(repeating: "z", count: 65536) + "\r\n"
        var cutOff = false
        for _ in 0..<200 where !cutOff {
            do { try await connection.send(chunk) } catch { cutOff = true }
        }
        let closed = cutOff ? true : await connection.isClosedByPeer()
        #expect(closed)
    }

    @Test func oversizeHeadersAre431InTheEnvelope() async throws {
        let server = try startServer(EchoHandler(), configure: { $0.maxHeaderBytes = 2048 })
        defer { server.stop() }
        let connection = try RawConnection(port: server.port)
        try await connection.send("GET / HTTP/1.1\r\nHost: x\r\nX-Big: \(String(repeating: "h", count: 3000))\r\n\r\n")
        let response = try await connection.readResponse()
        #expect(response.status == 431)
        #expect(
            response.text == #"{"error":431,"error_text":"request headers are larger than 2048 bytes","profile":null}"#)
    }
}
