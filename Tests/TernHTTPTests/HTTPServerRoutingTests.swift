import Foundation
import TernHTTP
import Testing

@Suite struct HTTPServerRoutingTests {
    @Test func handlerSeesMethodPathQueryHeadersBodyAndRemoteAddress() async throws {
        let server = try startServer(EchoHandler())
        defer { server.stop() }
        let (status, _, data) = try await fetch(
            server, "/api/v1/push/subscribe?resource=app%201&flag&x=%C3%A9", method: "POST",
            headers: ["X-Tern-Test": "yes", "Content-Type": "application/json"], body: Data(#"{"a":1}"#.utf8))
        #expect(status == 200)
        let echo = try JSONDecoder().decode(Echo.self, from: data)
        #expect(echo.method == "POST")
        #expect(echo.path == "/api/v1/push/subscribe")
        #expect(echo.query == ["resource": "app 1", "flag": "", "x": "é"])
        #expect(echo.headers["x-tern-test"] == "yes")
        #expect(echo.headers["content-type"] == "application/json")
        #expect(echo.body == #"{"a":1}"#)
        #expect(echo.remoteAddress == "127.0.0.1")
    }

    @Test func headerLookupIgnoresCase() {
        let request = HTTPRequest(method: "GET", path: "/", headers: ["Authorization": "Bearer t"])
        #expect(request.header("AUTHORIZATION") == "Bearer t")
        #expect(request.headers["authorization"] == "Bearer t")
    }

    @Test func handlersStatusHeadersAndBodyReachTheClient() async throws {
        let payload = Data((0..<300_000).map { UInt8($0 % 251) })
        let server = try startServer(
            HTTPHandlerFunction { _ in
                HTTPResponse(
                    status: 207, headers: [("X-Tern", "one"), ("Content-Type", "application/octet-stream")],
                    body: payload)
            })
        defer { server.stop() }
        let (status, headers, body) = try await fetch(server, "/anything")
        #expect(status == 207)
        #expect(headers["x-tern"] == "one")
        #expect(headers["content-type"] == "application/octet-stream")
        #expect(body == payload)
    }

    @Test func jsonAndTextHelpersSetContentType() {
        #expect(HTTPResponse.json(200, Data()).header("content-type") == "application/json")
        #expect(HTTPResponse.text(404, "no").header("Content-Type") == "text/plain; charset=utf-8")
        #expect(HTTPResponse.text(404, "no").body == Data("no".utf8))
    }

    @Test func keepAliveServesSeveralRequestsOnOneConnection() async throws {
        let server = try startServer(EchoHandler())
        defer { server.stop() }
        let connection = try RawConnection(port: server.port)
        for index in 0..<3 {
            let body = "request \(index)"
            try await connection.send(
                "POST /n/\(index) HTTP/1.1\r\nHost: x\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
            let response = try await connection.readResponse()
            #expect(response.status == 200)
            let echo = try JSONDecoder().decode(Echo.self, from: response.body)
            #expect(echo.path == "/n/\(index)")
            #expect(echo.body == body)
        }
        // Pipelined: two requests in one write, two answers in order.
        try await connection.send("GET /p/1 HTTP/1.1\r\nHost: x\r\n\r\nGET /p/2 HTTP/1.1\r\nHost: x\r\n\r\n")
        let first = try JSONDecoder().decode(Echo.self, from: try await connection.readResponse().body)
        let second = try JSONDecoder().decode(Echo.self, from: try await connection.readResponse().body)
        #expect([first.path, second.path] == ["/p/1", "/p/2"])
    }

    @Test func chunkedUploadIsAssembled() async throws {
        let server = try startServer(EchoHandler())
        defer { server.stop() }
        let connection = try RawConnection(port: server.port)
        try await connection.send(
            "POST /chunked HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n"
        )
        let response = try await connection.readResponse()
        #expect(response.status == 200)
        #expect(try JSONDecoder().decode(Echo.self, from: response.body).body == "hello world")
    }

    @Test(.timeLimit(.minutes(1)))
    func handlersRunConcurrentlyBeyondTheThreadPool() async throws {
        // Two event-loop threads, sixteen requests held inside the handler at once: only possible
        // when a waiting handler does not occupy a loop thread.
        let gate = Gate()
        let server = try startServer(
            HTTPHandlerFunction { request in
                await gate.pass()
                return .text(200, request.path)
            }, configure: { $0.threads = 2 })
        defer { server.stop() }
        let count = 16
        let connections = try (0..<count).map { _ in try RawConnection(port: server.port) }
        for (index, connection) in connections.enumerated() {
            try await connection.send("GET /c/\(index) HTTP/1.1\r\nHost: x\r\n\r\n")
        }
        await gate.waitForArrivals(count)
        await gate.release()
        for (index, connection) in connections.enumerated() {
            let response = try await connection.readResponse()
            #expect(response.status == 200)
            #expect(response.text == "/c/\(index)")
        }
    }

    @Test func manyConcurrentRequestsAllGetTheirOwnAnswer() async throws {
        let server = try startServer(EchoHandler(), configure: { $0.threads = 4 })
        defer { server.stop() }
        let paths = try await withThrowingTaskGroup(of: (Int, String).self) { group in
            for index in 0..<200 {
                group.addTask {
                    let (_, _, data) = try await fetch(
                        server, "/r/\(index)", method: "POST", body: Data("\(index)".utf8))
                    let echo = try JSONDecoder().decode(Echo.self, from: data)
                    return (index, echo.path + "#" + echo.body)
                }
            }
            var seen: [Int: String] = [:]
            for try await (index, value) in group { seen[index] = value }
            return seen
        }
        #expect(paths.count == 200)
        #expect(paths.allSatisfy { $0.value == "/r/\($0.key)#\($0.key)" })
    }
}
