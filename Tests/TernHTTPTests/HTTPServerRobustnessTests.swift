import Foundation
import TernHTTP
import Testing

@Suite struct HTTPServerRobustnessTests {
    @Test func pathThatIsNotUTF8Is400InTheEnvelope() async throws {
        let server = try startServer(EchoHandler())
        defer { server.stop() }
        let connection = try RawConnection(port: server.port)
        try await connection.send("GET /bad%FF%FE HTTP/1.1\r\nHost: x\r\n\r\n")
        let response = try await connection.readResponse()
        #expect(response.status == 400)
        #expect(response.text == #"{"error":400,"error_text":"request path is not valid UTF-8","profile":null}"#)
    }

    @Test func invalidStatusFromAHandlerBecomes500() async throws {
        let server = try startServer(HTTPHandlerFunction { _ in HTTPResponse(status: 42) })
        defer { server.stop() }
        let (status, _, body) = try await fetch(server, "/")
        #expect(status == 500)
        #expect(String(decoding: body, as: UTF8.self).contains("invalid HTTP status 42"))
    }

    @Test func headerWithLineBreakFromAHandlerIsLeftOut() async throws {
        let server = try startServer(
            HTTPHandlerFunction { _ in
                HTTPResponse(status: 200, headers: [("X-Evil", "a\r\nSet-Cookie: x=1"), ("X-Good", "g")])
            })
        defer { server.stop() }
        let (status, headers, _) = try await fetch(server, "/")
        #expect(status == 200)
        #expect(headers["x-good"] == "g")
        #expect(headers["set-cookie"] == nil)
    }

    @Test func garbageOnTheWireNeverStopsTheServer() async throws {
        let server = try startServer(EchoHandler())
        defer { server.stop() }
        var generator = SystemRandomNumberGenerator()
        let samples: [Data] =
            [
                Data("\r\n\r\n".utf8), Data("GET\r\n\r\n".utf8), Data("GET / HTTP/9.9\r\n\r\n".utf8),
                Data("POST / HTTP/1.1\r\nContent-Length: -5\r\n\r\n".utf8),
                Data("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999999999999999\r\n\r\n".utf8),
                Data("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nZZZ\r\n".utf8),
                Data("GET / HTTP/1.1\r\nHost: x\r\n: no-name\r\n\r\n".utf8), Data([0, 0, 0, 0xFF, 0xFE]),
            ]
            + (0..<40).map { _ in
                Data(
                    (0..<Int.random(in: 1...2000, using: &generator)).map { _ in
                        UInt8.random(in: 0...255, using: &generator)
                    })
            }
        for sample in samples {
            let connection = try RawConnection(port: server.port)
            try? await connection.send(sample)
        }
        let (status, _, _) = try await fetch(server, "/still-alive")
        #expect(status == 200)
    }
}
