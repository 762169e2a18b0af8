import Foundation
import Testing

/// RFC 9112 framing on a raw socket: what a proxy in front or a careless client can send. Each bad
/// framing gets one JSON answer and the connection is closed, so nothing after it is read as a
/// second request.
@Suite(.serialized) struct FramingTests {
    static let smuggled = "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"

    /// A refused head, with the status and the words its envelope must have.
    typealias RefusedHead = (request: String, status: Int, words: String)

    /// Heads that break RFC 9112's framing rules (lengths, codings, Host, control characters).
    static let brokenRules: [RefusedHead] = {
        let post = "POST /api/v1/event/push HTTP/1.1\r\nHost: x\r\n"
        let body = #"{"events":[]}"#
        return [
            (
                post + "Content-Length: \(body.utf8.count)\r\nContent-Length: 3\r\n\r\n\(body)\(Self.smuggled)", 400,
                "Content-Length more than once"
            ),
            (
                post + "Content-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n\(Self.smuggled)", 400,
                "both Content-Length and Transfer-Encoding"
            ),
            (post + "Transfer-Encoding: gzip\r\n\r\nabc", 501, "transfer coding"),
            (post + "Transfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n", 501, "transfer coding"),
            ("GET /healthz HTTP/1.1\r\n\r\n", 400, "Host"),
            ("GET /healthz HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400, "more than one Host"),
            ("GET /healthz HTTP/1.1\r\nHost: x\r\nX-Note: a\rInjected: b\r\n\r\n", 400, "control character"),
            ("POST /api/v1/event/push HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400, "HTTP/1.0"),
        ]
    }()

    /// Heads a C server would answer with its own HTML page: numbers that are not numbers or do not
    /// fit, an over-long request line, huge headers, an unsupported version.
    static let unreadableHeads: [RefusedHead] = {
        let post = "POST /api/v1/event/push HTTP/1.1\r\nHost: x\r\n"
        return [
            (post + "Content-Length: abc\r\n\r\n", 400, "not one decimal number"),
            (post + "Content-Length: 99999999999999999999999\r\n\r\n", 413, "larger than"),
            (post + "Transfer-Encoding: chunked\r\n\r\nFFFFFFFFFFFFFFFFFFFF\r\nab\r\n", 413, "chunk"),
            (post + "Transfer-Encoding: chunked\r\n\r\nzz\r\nab\r\n", 400, "not a hexadecimal number"),
            ("GET /" + String(repeating: "a", count: 20_000) + " HTTP/1.1\r\nHost: x\r\n\r\n", 414, "request line"),
            (
                "GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + String(repeating: "a", count: 40_000) + "\r\n\r\n", 431,
                "headers"
            ),
            ("GET /healthz HTTP/2.0\r\nHost: x\r\n\r\n", 505, "HTTP/2.0 is not supported"),
        ]
    }()

    func exchange(_ server: SecurityServer, _ request: String) async throws -> RawSocket.Reply {
        let socket = try RawSocket(port: server.process.port)
        await socket.send(request)
        return await socket.read()
    }

    func expectRefused(_ reply: RawSocket.Reply, status: Int, mentioning words: String) {
        #expect(reply.status == status, "\(reply.text)")
        #expect(reply.answers == 1, "a second answer means trailing bytes were read as a request: \(reply.text)")
        #expect(reply.closed, "the connection must close after a framing error")
        #expect(reply.text.contains("Content-Type: application/json"), "\(reply.text)")
        #expect(reply.body.contains("\"error\":\(status)"), "\(reply.body)")
        #expect(reply.body.contains(words), "\(reply.body)")
    }

    @Test func framingErrorsAreAnsweredOnceAndClose() async throws {
        let server = try await SecurityServer.start()
        defer { Task { await server.stop() } }
        for (request, status, words) in Self.brokenRules {
            expectRefused(try await exchange(server, request), status: status, mentioning: words)
        }
    }

    /// What a C server would answer with its own HTML page is refused in the envelope like every
    /// other answer.
    @Test func headsThatBreakTheFramingAreAnsweredInTheEnvelope() async throws {
        let server = try await SecurityServer.start()
        defer { Task { await server.stop() } }
        for (request, status, words) in Self.unreadableHeads {
            let reply = try await exchange(server, request)
            #expect(!reply.text.contains("<html"), "an HTML page: \(reply.text.prefix(300))")
            expectRefused(reply, status: status, mentioning: words)
        }
        // A head that arrives in pieces is still looked at whole, and a sound one is served.
        let socket = try RawSocket(port: server.process.port)
        for piece in ["GET /hea", "lthz HTTP/1.1\r\nHo", "st: x\r\n\r\n"] {
            await socket.send(piece)
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(await socket.read(quiet: 1).status == 200)
    }

    /// Every framing case above, as the second request on a kept-alive connection: the first
    /// request's answer is intact and the connection stays open; the bad one gets the envelope and
    /// the connection closes (a later head is read by the same rules as a first one).
    @Test func framingErrorsInALaterRequestAreAnsweredInTheEnvelopeAndClose() async throws {
        let server = try await SecurityServer.start()
        defer { Task { await server.stop() } }
        for (request, status, words) in Self.brokenRules + Self.unreadableHeads {
            let socket = try RawSocket(port: server.process.port)
            await socket.send(Self.smuggled)
            let first = await socket.read(quiet: 1)
            #expect(first.status == 200 && first.answers == 1 && !first.closed, "\(first.text)")
            #expect(first.body.contains("\"ok\""), "the first answer is whole: \(first.text)")
            await socket.send(request)
            let reply = await socket.read()
            #expect(!reply.text.contains("<html"), "an HTML page: \(reply.text.prefix(300))")
            expectRefused(reply, status: status, mentioning: words)
        }
    }

    /// Pipelined: a sound request and a bad one in one write get the sound answer, then the
    /// envelope, then the close; two sound ones get both answers, in the order they were sent.
    @Test func pipelinedRequestsAreAnsweredInOrder() async throws {
        let server = try await SecurityServer.start()
        defer { Task { await server.stop() } }
        let pair = try RawSocket(port: server.process.port)
        await pair.send(Self.smuggled + "GET /api/v1/no-such-route HTTP/1.1\r\nHost: x\r\n\r\n")
        let both = await pair.read(quiet: 1)
        #expect(both.answers == 2, "\(both.text)")
        let found = both.text.range(of: "HTTP/1.1 200")
        let missing = both.text.range(of: "HTTP/1.1 404")
        #expect(found != nil && missing != nil && found!.lowerBound < missing!.lowerBound, "\(both.text)")
        #expect(!both.closed)

        let bad = try RawSocket(port: server.process.port)
        await bad.send(Self.smuggled + "GET /healthz HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n" + Self.smuggled)
        let reply = await bad.read()
        #expect(reply.status == 200, "\(reply.text)")
        #expect(reply.answers == 2, "the bytes after the bad head must not be read: \(reply.text)")
        #expect(reply.text.contains("more than one Host"), "\(reply.text)")
        #expect(!reply.text.contains("<html"), "\(reply.text)")
        #expect(reply.closed)
    }

    @Test func soundRequestsKeepTheConnection() async throws {
        let server = try await SecurityServer.start()
        defer { Task { await server.stop() } }
        let socket = try RawSocket(port: server.process.port)
        await socket.send(Self.smuggled + Self.smuggled)
        let reply = await socket.read()
        #expect(reply.answers == 2, "\(reply.text)")
        #expect(reply.status == 200)
        #expect(!reply.closed)
        // Identical repeated lengths are one length (RFC 9112 §6.3 allows either answer; Tern takes it).
        let same = try RawSocket(port: server.process.port)
        await same.send("GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nContent-Length: 0\r\n\r\n")
        #expect(await same.read().status == 200)
    }

    /// A client that drips its head a byte at a time is never idle; the head deadline still ends it.
    @Test func aHeadThatTricklesInIsCutOffAtTheHeadDeadline() async throws {
        let server = try await SecurityServer.start(["--head-timeout", "2", "--connection-timeout", "60"])
        defer { Task { await server.stop() } }
        let socket = try RawSocket(port: server.process.port)
        var cutOff = false
        for byte in "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: " + String(repeating: "a", count: 60) {
            guard await socket.send(String(byte)) else {
                cutOff = true
                break
            }
            try await Task.sleep(for: .milliseconds(250))
        }
        if !cutOff { cutOff = await socket.read(quiet: 1).closed }
        #expect(cutOff, "a 15-second trickle outlived a 2-second head deadline")
    }

    /// A body dripping in is never idle either; the body deadline answers 408 in the envelope and closes.
    @Test func aBodyThatTricklesInGetsA408AtTheBodyDeadline() async throws {
        let server = try await SecurityServer.start(["--body-timeout", "2", "--connection-timeout", "60"])
        defer { Task { await server.stop() } }
        let socket = try RawSocket(port: server.process.port)
        let started = ContinuousClock.now
        await socket.send(
            "POST /api/v1/event/push HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n"
        )
        for byte in #"{"events":["# {
            await socket.send(String(byte))
            try await Task.sleep(for: .milliseconds(150))
        }
        let reply = await socket.read(quiet: 6)
        #expect(ContinuousClock.now - started < .seconds(15), "the 60-second idle timeout ended it, not the deadline")
        #expect(reply.status == 408, "\(reply.text)")
        #expect(reply.text.contains("Content-Type: application/json"), "\(reply.text)")
        #expect(
            reply.body.contains("\"error\":408") && reply.body.contains("did not arrive within 2 s"), "\(reply.body)")
        #expect(reply.closed)
        // A body sent at once is not held to anything.
        let quick = try RawSocket(port: server.process.port)
        await quick.send(
            "POST /api/v1/event/push HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}"
        )
        #expect(await quick.read(quiet: 1).status != 408)
    }

    @Test func oneAddressCannotTakeMoreThanItsShareOfConnections() async throws {
        let server = try await SecurityServer.start(["--max-connections-per-address", "2"])
        defer { Task { await server.stop() } }
        // Held open at once (the start-up health check may hold one more of this address's slots).
        let sockets = try (0..<4).map { _ in try RawSocket(port: server.process.port) }
        var served = 0
        var refused = 0
        for socket in sockets {
            await socket.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            let reply = await socket.read(quiet: 1)
            if reply.status == 200 { served += 1 }
            if reply.closed && reply.answers == 0 { refused += 1 }
        }
        #expect(served <= 2)
        #expect(refused >= 2)
    }
}
