import Foundation
import TernTestSupport
import Testing

@testable import TernHTTP

@Suite struct HTTPServerLifecycleTests {
    @Test func portZeroPicksAFreePortThatAnswers() async throws {
        let server = try startServer(HTTPHandlerFunction { _ in .text(200, "up") })
        defer { server.stop() }
        #expect(server.port > 0)
        let (status, _, body) = try await fetch(server, "/")
        #expect(status == 200)
        #expect(body == Data("up".utf8))
    }

    @Test func portInUseIsAnErrorWithItsReason() throws {
        let first = try startServer(EchoHandler())
        defer { first.stop() }
        let error = #expect(throws: HTTPServerError.self) {
            _ = try HTTPServer(configuration: .init(port: first.port), handler: EchoHandler())
        }
        #expect(
            error?.reason
                == "port \(first.port) on 127.0.0.1 is in use by another process (pick another with --port, or 0 for any)"
        )
    }

    @Test func hostThatIsNotIPv4IsAnError() {
        let error = #expect(throws: HTTPServerError.self) {
            _ = try HTTPServer(configuration: .init(host: "example.invalid", port: 0), handler: EchoHandler())
        }
        #expect(error?.reason.contains("not an IPv4 address") == true)
    }

    @Test func nonsenseConfigurationIsRefused() {
        #expect(throws: HTTPServerError("threads must be at least 1, not 0")) {
            _ = try HTTPServer(configuration: .init(port: 0, threads: 0), handler: EchoHandler())
        }
    }

    @Test func stopIsIdempotentAndClosesThePort() async throws {
        let server = try startServer(EchoHandler())
        let port = server.port
        server.stop()
        server.stop()
        #expect(throws: RawConnectionError.self) { _ = try RawConnection(port: port) }
        #expect(throws: HTTPServerError.self) { try server.start() }
    }

    @Test func startTwiceIsAnError() throws {
        let server = try startServer(EchoHandler())
        defer { server.stop() }
        #expect(throws: HTTPServerError("the server is already running on port \(server.port)")) {
            try server.start()
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func stopLetsARequestInFlightFinish() async throws {
        let gate = Gate()
        let server = try startServer(
            HTTPHandlerFunction { _ in
                await gate.pass()
                return .text(200, "finished")
            })
        let connection = try RawConnection(port: server.port)
        try await connection.send("GET /slow HTTP/1.1\r\nHost: x\r\n\r\n")
        await gate.waitForArrivals(1)
        let stopping = Task { try await offThePool { server.stop() } }
        while !server.isStopping { try await Task.sleep(for: .milliseconds(5)) }
        await gate.release()
        let response = try await connection.readResponse()
        #expect(response.status == 200)
        #expect(response.text == "finished")
        #expect(response.headers["connection"]?.lowercased() == "close")
        try await stopping.value
    }

    @Test(.timeLimit(.minutes(1)))
    func stopAnswers503WhenTheGracePeriodIsOver() async throws {
        let gate = Gate()
        // Passed once the handler goes on after the server stopped: its loop's thread has ended by
        // then, so the rest of the handler runs on the global executor instead of waiting forever.
        let afterStop = Gate()
        let server = try startServer(
            HTTPHandlerFunction { _ in
                await gate.pass()
                await afterStop.pass()
                return .text(200, "too late")
            }, configure: { $0.shutdownGraceSeconds = 0 })
        let connection = try RawConnection(port: server.port)
        try await connection.send("GET /stuck HTTP/1.1\r\nHost: x\r\n\r\n")
        await gate.waitForArrivals(1)
        try await offThePool { server.stop() }
        let response = try await connection.readResponse()
        #expect(response.status == 503)
        #expect(response.text == #"{"error":503,"error_text":"server is shutting down","profile":null}"#)
        await gate.release()
        await afterStop.waitForArrivals(1)
        await afterStop.release()
    }

    @Test func handlersRunOnTheirConnectionsLoop() async throws {
        let server = try startServer(
            HTTPHandlerFunction { _ in
                let preferred = withUnsafeCurrentTask { $0?.unownedTaskExecutor } != nil
                return .text(200, preferred ? "on a loop" : "on the global executor")
            })
        defer { server.stop() }
        let (status, _, body) = try await fetch(server, "/")
        #expect(status == 200)
        #expect(String(decoding: body, as: UTF8.self) == "on a loop")
    }

    @Test func connectionsAreSharedOutAmongTheLoopsInTurn() async throws {
        let server = try startServer(EchoHandler(), configure: { $0.threads = 4 })
        defer { server.stop() }
        // Opened together, as a client's pool opens them: the loop the kernel wakes first accepts
        // every one waiting.
        var connections: [RawConnection] = []
        for _ in 0..<12 { connections.append(try RawConnection(port: server.port)) }
        for connection in connections {
            try await connection.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await connection.readResponse().status == 200)
        }
        #expect(server.connectionsPerLoop == [3, 3, 3, 3])
    }
}
