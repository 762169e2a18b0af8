import Foundation
import TernHTTP
import Testing

/// HTTP/1.1's connection rules on a raw socket: `Connection: close`, HTTP/1.0's keep-alive, an
/// interim `100 Continue`, HEAD, strict chunked framing, and answers in request order.
@Suite struct HTTPServerConnectionTests {
    @Test func connectionCloseIsHonoured() async throws {
        let server = try startServer(EchoHandler())
        defer { server.stop() }
        let connection = try RawConnection(port: server.port)
        try await connection.send("GET /bye HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        let response = try await connection.readResponse()
        #expect(response.status == 200)
        #expect(response.headers["connection"] == "close")
        #expect(await connection.isClosedByPeer())
    }

    @Test func http10ClosesUnlessAskedToKeepAlive() async throws {
        let server = try startServer(EchoHandler())
        defer { server.stop() }
        let old = try RawConnection(port: server.port)
        try await old.send("GET /old HTTP/1.0\r\n\r\n")
        let first = try await old.readResponse()
        #expect(first.status == 200)
        #expect(first.headers["connection"] == "close")
        #expect(await old.isClosedByPeer())

        let kept = try RawConnection(port: server.port)
        for index in 0..<2 {
            try await kept.send("GET /kept/\(index) HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
            let response = try await kept.readResponse()
            #expect(response.headers["connection"] == "keep-alive")
            #expect(try JSONDecoder().decode(Echo.self, from: response.body).path == "/kept/\(index)")
        }
    }

    @Test func expectContinueGetsAnInterimAnswerBeforeTheBody() async throws {
        let server = try startServer(EchoHandler())
        defer { server.stop() }
        let connection = try RawConnection(port: server.port)
        try await connection.send(
            "POST /up HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n")
        #expect(try await connection.readHead() == "HTTP/1.1 100 Continue")
        try await connection.send("hello")
        let response = try await connection.readResponse()
        #expect(response.status == 200)
        #expect(try JSONDecoder().decode(Echo.self, from: response.body).body == "hello")
    }

    @Test func headAnswersTheLengthWithoutTheBody() async throws {
        let server = try startServer(HTTPHandlerFunction { _ in .text(200, "twelve bytes") })
        defer { server.stop() }
        let connection = try RawConnection(port: server.port)
        try await connection.send("HEAD / HTTP/1.1\r\nHost: x\r\n\r\nGET / HTTP/1.1\r\nHost: x\r\n\r\n")
        // The HEAD answer says 12 bytes and sends none: the next bytes are the GET's answer.
        let head = try await connection.readHead()
        #expect(head.contains("Content-Length: 12"), "\(head)")
        let get = try await connection.readResponse()
        #expect(get.status == 200)
        #expect(get.text == "twelve bytes")
    }

    @Test func chunkedFramingIsStrictAndTrailersAreBounded() async throws {
        let server = try startServer(EchoHandler(), configure: { $0.maxHeaderBytes = 1024 })
        defer { server.stop() }
        let post = "POST /c HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"

        let withTrailers = try RawConnection(port: server.port)
        try await withTrailers.send(post + "3\r\nabc\r\n0\r\nX-Sum: 1\r\n\r\n")
        let good = try await withTrailers.readResponse()
        #expect(good.status == 200)
        #expect(try JSONDecoder().decode(Echo.self, from: good.body).body == "abc")

        let cases: [(String, Int, String)] = [
            ("3\r\nabcdef\r\n0\r\n\r\n", 400, "followed by CRLF"),
            ("3\nabc\r\n0\r\n\r\n", 400, "end in CRLF"),
            ("3;ext=\rx\r\nabc\r\n0\r\n\r\n", 400, "control character"),
            ("0\r\nX-Big: " + String(repeating: "t", count: 2000) + "\r\n\r\n", 431, "trailer section"),
            ("0\r\nno colon here\r\n\r\n", 400, "no colon"),
        ]
        for (body, status, words) in cases {
            let connection = try RawConnection(port: server.port)
            try await connection.send(post + body + "GET /smuggled HTTP/1.1\r\nHost: x\r\n\r\n")
            let response = try await connection.readResponse()
            #expect(response.status == status, "\(body.prefix(30)): \(response.text)")
            #expect(response.text.contains(words), "\(response.text)")
            #expect(response.headers["connection"] == "close")
            #expect(await connection.isClosedByPeer(), "nothing after a framing error is read")
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func pipelinedAnswersKeepTheirOrderWhenTheFirstIsSlow() async throws {
        let server = try startServer(
            HTTPHandlerFunction { request in
                if request.path == "/slow" { try? await Task.sleep(for: .milliseconds(300)) }
                return .text(200, request.path)
            })
        defer { server.stop() }
        let connection = try RawConnection(port: server.port)
        try await connection.send(
            ["/slow", "/quick", "/last"].map { "GET \($0) HTTP/1.1\r\nHost: x\r\n\r\n" }.joined())
        var order: [String] = []
        for _ in 0..<3 { order.append(try await connection.readResponse().text) }
        #expect(order == ["/slow", "/quick", "/last"])
    }

    @Test func aLaterHeadOnAKeptConnectionIsReadByTheSameRules() async throws {
        let server = try startServer(EchoHandler())
        defer { server.stop() }
        let connection = try RawConnection(port: server.port)
        try await connection.send("GET /first HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(try await connection.readResponse().status == 200)
        try await connection.send("GET /second HTTP/1.1\r\nHost: x\r\nBad Name: v\r\n\r\n")
        let refused = try await connection.readResponse()
        #expect(refused.status == 400)
        #expect(refused.text.contains("is not a token"), "\(refused.text)")
        #expect(await connection.isClosedByPeer())
    }

    /// Idle connections cost the loop nothing while they are quiet: with 2,000 open, a new one and
    /// the last of them are both answered.
    @Test(.timeLimit(.minutes(1)))
    func twoThousandIdleConnectionsDoNotStopTheServer() async throws {
        let server = try startServer(EchoHandler(), configure: { $0.maxConnectionsPerAddress = 0 })
        defer { server.stop() }
        let idle = try (0..<2000).map { _ in try RawConnection(port: server.port) }
        let (status, _, _) = try await fetch(server, "/still-serving")
        #expect(status == 200)
        try await idle[idle.count - 1].send("GET /last HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(try await idle[idle.count - 1].readResponse().status == 200)
    }
}
