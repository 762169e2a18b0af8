import Foundation
import TernHTTP
import TernTestSupport
import Testing

/// The nghttp2 connection pool against a real HTTP/2 peer over TLS with a test CA.
@Suite(.serialized) struct HTTP2ConnectionPoolTests {
    let certificates: TestCertificates

    init() throws {
        certificates = try TestCertificates.make()
    }

    func origin(_ peer: H2Peer) -> URL { URL(string: "https://127.0.0.1:\(peer.port)")! }

    func pool(
        _ peer: H2Peer, connections: Int = 4, streams: Int = 1000,
        configure: (inout HTTP2ConnectionPool.Configuration) -> Void = { _ in }
    ) throws -> HTTP2ConnectionPool {
        var configuration = HTTP2ConnectionPool.Configuration(
            caFile: certificates.caFile, maxConnections: connections, maxStreamsPerConnection: streams)
        configure(&configuration)
        return try HTTP2ConnectionPool(origin: origin(peer), configuration: configuration)
    }

    /// The errors of answers that must all have failed; records an issue for each that did not.
    func failures(
        of answers: [Result<HTTP2Response, HTTP2ClientError>], sourceLocation: SourceLocation = #_sourceLocation
    ) -> [HTTP2ClientError] {
        answers.compactMap { answer in
            switch answer {
            case .failure(let error): return error
            case .success(let response):
                Issue.record("expected a failure, got status \(response.status)", sourceLocation: sourceLocation)
                return nil
            }
        }
    }

    /// The peer's counters, asked over a connection of its own (one more in `connections`).
    func stats(_ peer: H2Peer) async throws -> PeerStats {
        let control = try pool(peer)
        return try JSONDecoder().decode(PeerStats.self, from: try await control.send(.init(path: "/stats")).body)
    }

    @Test func postsWithHeadersAndBodyAndReadsTheAnswer() async throws {
        let peer = try await H2Peer(certificates: certificates)
        defer { peer.stop() }
        let pool = try pool(peer)
        try SampleEcho.check(
            try await pool.send(
                HTTP2ConnectionPool.Request(
                    method: "POST", path: "/echo", headers: SampleEcho.headers, body: SampleEcho.body)))
        // A whole URL on the pool's origin works too.
        let byURL = try await pool.send(HTTP2Request(url: URL(string: "https://127.0.0.1:\(peer.port)/status/204")!))
        #expect(byURL.status == 204)
    }

    @Test func sharedHeadersAreCheckedOnceAndSentWithEachRequestsOwn() async throws {
        let peer = try await H2Peer(certificates: certificates)
        defer { peer.stop() }
        let pool = try pool(peer)
        let shared = try HTTP2ConnectionPool.SharedHeaders(
            [("Authorization", "bearer abc"), ("apns-topic", "com.example.app"), ("Connection", "close")])
        #expect(shared.fields.map(\.name) == ["authorization", "apns-topic"], "lowercased, connection's left out")
        let answers = await pool.send(
            (0..<3).map {
                HTTP2ConnectionPool.Request(
                    method: "POST", path: "/echo", shared: shared, headers: [("apns-id", "id-\($0)")],
                    body: Data("\($0)".utf8))
            })
        let echoes = try answers.map { try JSONDecoder().decode(PeerEcho.self, from: try $0.get().body) }
        for (index, echo) in echoes.enumerated() {
            #expect(echo.headers["authorization"] == "bearer abc")
            #expect(echo.headers["apns-topic"] == "com.example.app")
            #expect(echo.headers["apns-id"] == "id-\(index)")
            #expect(echo.headers["content-length"] == "1")
            #expect(echo.body == "\(index)")
        }
        // Refused as a request's own fields are, and a request's own are still checked.
        let name = #expect(throws: HTTP2ClientError.self) { try HTTP2ConnectionPool.SharedHeaders([("bad name", "x")]) }
        #expect(name?.kind == .invalidRequest)
        #expect(name?.reason == "header name \"bad name\" is not valid")
        let value = #expect(throws: HTTP2ClientError.self) {
            try HTTP2ConnectionPool.SharedHeaders([("apns-topic", "a\nb")])
        }
        #expect(value?.reason == "header apns-topic has a line break or NUL in its value")
        let own = await #expect(throws: HTTP2ClientError.self) {
            try await pool.send(.init(path: "/echo", shared: shared, headers: [("x-bad", "a\0b")]))
        }
        #expect(own?.reason.contains("x-bad has a line break") == true)
    }

    @Test func errorStatusesAreAnswersNotThrows() async throws {
        let peer = try await H2Peer(certificates: certificates)
        defer { peer.stop() }
        let response = try await pool(peer).send(.init(method: "POST", path: "/status/410"))
        #expect(response.status == 410)
        #expect(response.header("x-peer") == "h2peer")
        #expect(response.body == Data(#"{"reason":"as asked"}"#.utf8))
    }

    @Test(.timeLimit(.minutes(1)))
    func aBatchIsMultiplexedOnOneConnectionAndAnsweredInOrder() async throws {
        let peer = try await H2Peer(certificates: certificates)
        defer { peer.stop() }
        let pool = try pool(peer, connections: 1, streams: 100)
        // The peer answers /barrier/30 only when 30 streams wait there at once.
        let barrier = await pool.send((0..<30).map { _ in HTTP2ConnectionPool.Request(path: "/barrier/30") })
        #expect(barrier.allSatisfy { (try? $0.get().status) == 200 })
        let echoes = await pool.send(
            (0..<500).map { HTTP2ConnectionPool.Request(method: "POST", path: "/echo", body: Data("\($0)".utf8)) })
        let bodies = try echoes.map { try JSONDecoder().decode(PeerEcho.self, from: try $0.get().body).body }
        #expect(bodies == (0..<500).map { "\($0)" })
        #expect(pool.connectionCount == 1)
        let stats = try await stats(peer)
        #expect(stats.connections == 2, "the pool's one, and the control's")
        #expect(stats.max_open_streams >= 30)
        #expect(stats.max_open_streams <= 100, "never more streams than configured")
    }

    @Test(.timeLimit(.minutes(1)))
    func thePeersStreamLimitHoldsAndTheRestWait() async throws {
        let peer = try await H2Peer(certificates: certificates, maxStreams: 5)
        defer { peer.stop() }
        let pool = try pool(peer, connections: 1)
        let answers = await pool.send((0..<200).map { _ in HTTP2ConnectionPool.Request(path: "/size/10") })
        #expect(answers.allSatisfy { (try? $0.get().body.count) == 10 })
        let stats = try await stats(peer)
        #expect(stats.max_open_streams <= 5)
        #expect(stats.resets == 0, "nothing was refused: the pool waited for free streams")
    }

    @Test(.timeLimit(.minutes(1)))
    func anotherConnectionOpensWhenTheStreamsRunOut() async throws {
        let peer = try await H2Peer(certificates: certificates, maxStreams: 4)
        defer { peer.stop() }
        let pool = try pool(peer, connections: 3)
        // Four requests the peer never answers hold every stream of the first connection.
        let stuck = Task { await pool.send((0..<4).map { _ in .init(path: "/never", timeout: 30) }) }
        while try await stats(peer).waiting < 4 { try await Task.sleep(for: .milliseconds(20)) }
        let answers = await pool.send((0..<8).map { _ in HTTP2ConnectionPool.Request(path: "/status/200") })
        #expect(answers.allSatisfy { (try? $0.get().status) == 200 })
        #expect(pool.connectionCount >= 2)
        stuck.cancel()
    }

    @Test func largeAnswerArrivesWholeAndOneOverTheLimitFails() async throws {
        let peer = try await H2Peer(certificates: certificates)
        defer { peer.stop() }
        let pool = try pool(peer) { $0.maxResponseBytes = 400_000 }
        #expect(try await pool.send(.init(path: "/size/300000")).body.count == 300_000)
        let error = await #expect(throws: HTTP2ClientError.self) { try await pool.send(.init(path: "/size/500000")) }
        #expect(error?.kind == .responseTooLarge)
        #expect(try await pool.send(.init(path: "/size/5")).body.count == 5, "the connection still serves")
    }

    @Test func requestTimeoutFailsWithTheReasonAndResetsTheStream() async throws {
        let peer = try await H2Peer(certificates: certificates)
        defer { peer.stop() }
        let pool = try pool(peer)
        let error = await #expect(throws: HTTP2ClientError.self) {
            try await pool.send(.init(path: "/never", timeout: 0.3))
        }
        #expect(error?.kind == .timeout)
        #expect(error?.reason == "GET https://127.0.0.1:\(peer.port)/never timed out after 300 ms")
        #expect(try await pool.send(.init(path: "/status/200")).status == 200)
        var stats = try await stats(peer)
        for _ in 0..<100 where stats.resets == 0 {
            try await Task.sleep(for: .milliseconds(20))
            stats = try await self.stats(peer)
        }
        #expect(stats.resets == 1)
        #expect(stats.waiting == 0)
    }

    @Test func untrustedCertificateFailsAsTLS() async throws {
        let peer = try await H2Peer(certificates: certificates)
        defer { peer.stop() }
        let stranger = try TestCertificates.make()
        let pool = try HTTP2ConnectionPool(origin: origin(peer), configuration: .init(caFile: stranger.caFile))
        let answers = await pool.send([.init(path: "/echo"), .init(path: "/echo")])
        for error in failures(of: answers) {
            #expect(error.kind == .tls)
            #expect(error.reason.contains("certificate"), "\(error.reason)")
        }
    }

    @Test func refusedConnectionFailsAsConnect() async throws {
        let peer = try await H2Peer(certificates: certificates)
        let pool = try pool(peer)
        peer.stop()
        let error = await #expect(throws: HTTP2ClientError.self) { try await pool.send(.init(path: "/echo")) }
        #expect(error?.kind == .connect)
        #expect(error?.reason.contains("127.0.0.1:\(peer.port)") == true, "\(String(describing: error))")
    }

    @Test(.timeLimit(.minutes(1)))
    func cancellingTheTaskResetsTheStreamInFlight() async throws {
        let peer = try await H2Peer(certificates: certificates)
        defer { peer.stop() }
        let pool = try pool(peer)
        let task = Task { try await pool.send(HTTP2ConnectionPool.Request(path: "/never", timeout: 60)) }
        while try await stats(peer).waiting == 0 { try await Task.sleep(for: .milliseconds(20)) }
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        while try await stats(peer).resets == 0 { try await Task.sleep(for: .milliseconds(20)) }
        #expect(try await stats(peer).waiting == 0)
        #expect(try await pool.send(.init(path: "/status/200")).status == 200)
    }

    @Test func requestCancelledBeforeItStartsIsNotSent() async throws {
        let peer = try await H2Peer(certificates: certificates)
        defer { peer.stop() }
        let pool = try pool(peer)
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await pool.send(HTTP2ConnectionPool.Request(path: "/never", timeout: 60))
        }
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(try await stats(peer).requests == 1, "only the stats request itself")
    }

    @Test(.timeLimit(.minutes(1)))
    func streamsRefusedByGoawayGoOutAgainOnANewConnection() async throws {
        let peer = try await H2Peer(certificates: certificates, goAwayAfter: 10)
        defer { peer.stop() }
        let pool = try pool(peer, connections: 2)
        let answers = await pool.send(
            (0..<50).map { HTTP2ConnectionPool.Request(method: "POST", path: "/echo", body: Data("\($0)".utf8)) })
        let echoes = try answers.map { try JSONDecoder().decode(PeerEcho.self, from: try $0.get().body) }
        #expect(echoes.map(\.body) == (0..<50).map { "\($0)" }, "every request answered once, in order")
        #expect(Set(echoes.map(\.connection)).count >= 5, "10 answers per connection")
        let stats = try await stats(peer)
        #expect(stats.goaways >= 5)
        #expect(stats.requests == 51, "none processed twice: 50 and the stats request")
    }

    @Test func badRequestsAreRefusedBeforeSending() async throws {
        let peer = try await H2Peer(certificates: certificates)
        defer { peer.stop() }
        let pool = try pool(peer)
        let header = await #expect(throws: HTTP2ClientError.self) {
            try await pool.send(.init(path: "/echo", headers: [("x-bad", "a\r\nb")]))
        }
        #expect(header?.kind == .invalidRequest)
        #expect(header?.reason.contains("x-bad has a line break") == true)
        let name = await #expect(throws: HTTP2ClientError.self) {
            try await pool.send(.init(path: "/echo", headers: [("bad name", "x")]))
        }
        #expect(name?.reason.contains("header name \"bad name\" is not valid") == true)
        let path = await #expect(throws: HTTP2ClientError.self) { try await pool.send(.init(path: "echo")) }
        #expect(path?.reason.contains("must start with /") == true)
        let elsewhere = await #expect(throws: HTTP2ClientError.self) {
            try await pool.send(HTTP2Request(url: URL(string: "https://example.com/echo")!))
        }
        #expect(elsewhere?.reason.contains("not on this pool's origin") == true)
        // In a batch the bad one fails alone.
        let batch = await pool.send([
            .init(path: "/status/200"), .init(method: "get", path: "/"), .init(path: "/status/201"),
        ])
        #expect((try? batch[0].get().status) == 200)
        #expect((try? batch[2].get().status) == 201)
        guard case .failure(let method) = batch[1] else {
            Issue.record("a lowercase method must be refused")
            return
        }
        #expect(method.kind == .invalidRequest)
        #expect(throws: HTTP2ClientError.self) {
            try HTTP2ConnectionPool(origin: URL(string: "http://127.0.0.1:1")!)
        }
        #expect(throws: HTTP2ClientError.self) {
            try HTTP2ConnectionPool(
                origin: URL(string: "https://127.0.0.1:1")!, configuration: .init(caFile: "/nonexistent/ca.pem"))
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func aQueuedRequestTimesOutAtItsOwnDeadlineWhileEveryStreamIsBusy() async throws {
        let peer = try await H2Peer(certificates: certificates, maxStreams: 1)
        defer { peer.stop() }
        let pool = try pool(peer, connections: 1)
        let stuck = Task { try await pool.send(HTTP2ConnectionPool.Request(path: "/never", timeout: 50)) }
        while try await stats(peer).waiting == 0 { try await Task.sleep(for: .milliseconds(20)) }
        let error = await #expect(throws: HTTP2ClientError.self) {
            try await pool.send(.init(path: "/status/200", timeout: 0.4))
        }
        #expect(error?.kind == .timeout)
        #expect(error?.reason.hasSuffix("timed out after 400 ms") == true)
        #expect(try await stats(peer).waiting == 1, "the stream that held the connection is still open")
        stuck.cancel()
        await #expect(throws: CancellationError.self) { try await stuck.value }
    }

    @Test(.timeLimit(.minutes(1)))
    func aPeerThatNeverSendsSettingsFailsTheRequestsAsConnect() async throws {
        let peer = try await H2Peer(certificates: certificates, silent: true)
        defer { peer.stop() }
        let pool = try pool(peer) { $0.connectTimeout = 0.5 }
        let answers = await pool.send([.init(path: "/echo", timeout: 30), .init(path: "/echo", timeout: 30)])
        for error in failures(of: answers) {
            #expect(error.kind == .connect)
            #expect(error.reason.contains("no SETTINGS frame"), "\(error.reason)")
        }
    }

    @Test func aBodyLargerThanTheFlowControlWindowArrivesWhole() async throws {
        let peer = try await H2Peer(certificates: certificates)
        defer { peer.stop() }
        let pool = try pool(peer)
        // 200 KB: more than the peer's initial 64 KB window, so the body goes out as the peer's
        // WINDOW_UPDATEs allow, in many DATA frames.
        let text = String((0..<200_000).map { Character(UnicodeScalar(UInt8(97 + $0 % 26))) })
        let answers = await pool.send(
            (0..<3).map {
                HTTP2ConnectionPool.Request(method: "POST", path: "/echo", body: Data(("\($0)" + text).utf8))
            })
        for (index, answer) in answers.enumerated() {
            let echo = try JSONDecoder().decode(PeerEcho.self, from: try answer.get().body)
            #expect(echo.body == "\(index)" + text)
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func aConnectionLostMidExchangeFailsItsStreamsAsTransport() async throws {
        let peer = try await H2Peer(certificates: certificates)
        let pool = try pool(peer)
        let waiting = Task {
            await pool.send((0..<3).map { _ in HTTP2ConnectionPool.Request(path: "/never", timeout: 30) })
        }
        while try await stats(peer).waiting < 3 { try await Task.sleep(for: .milliseconds(20)) }
        peer.stop()
        for error in failures(of: await waiting.value) {
            #expect(error.kind == .transport)
            #expect(error.reason.contains("ended before the answer"), "\(error.reason)")
        }
        // The next request finds no peer: a connect failure, not a hang.
        let next = await #expect(throws: HTTP2ClientError.self) { try await pool.send(.init(path: "/echo")) }
        #expect(next?.kind == .connect)
    }

    @Test func requestsGoThroughAConnectProxyWithTLSInsideTheTunnel() async throws {
        let peer = try await H2Peer(certificates: certificates)
        defer { peer.stop() }
        let proxy = try await ConnectProxy(user: "tern", password: "s3cret")
        defer { proxy.stop() }
        let pool = try pool(peer) {
            $0.proxy = try? HTTP2Proxy(url: URL(string: "http://tern:s3cret@127.0.0.1:\(proxy.port)")!)
        }
        let answers = await pool.send((0..<20).map { _ in HTTP2ConnectionPool.Request(path: "/status/200") })
        #expect(answers.allSatisfy { (try? $0.get().status) == 200 })
        let stats = try await proxy.stats()
        #expect(stats.tunnels == 1, "one connection, one tunnel")
        #expect(stats.target == "127.0.0.1:\(peer.port)")
    }

    @Test func aProxyThatRefusesTheTunnelFailsAsConnectWithItsAnswer() async throws {
        let peer = try await H2Peer(certificates: certificates)
        defer { peer.stop() }
        let proxy = try await ConnectProxy(user: "tern", password: "s3cret")
        defer { proxy.stop() }
        let pool = try pool(peer) {
            $0.proxy = try? HTTP2Proxy(url: URL(string: "http://tern:wrong@127.0.0.1:\(proxy.port)")!)
        }
        let error = await #expect(throws: HTTP2ClientError.self) { try await pool.send(.init(path: "/echo")) }
        #expect(error?.kind == .connect)
        #expect(
            error?.reason
                == "the proxy 127.0.0.1:\(proxy.port) refused CONNECT 127.0.0.1:\(peer.port): 407 Proxy Authentication Required"
        )
        #expect(try await proxy.stats().refused == 1)
    }

    @Test func theEnvironmentsProxyAppliesUnlessNoProxyNamesTheHost() throws {
        let environment = ["HTTPS_PROXY": "proxy.internal:3128", "no_proxy": "localhost, .example.org,10.0.0.1:443"]
        let proxy = try #require(try HTTP2Proxy.fromEnvironment(for: "api.push.apple.com", environment: environment))
        #expect(proxy.host == "proxy.internal" && proxy.port == 3128)
        #expect(try HTTP2Proxy.fromEnvironment(for: "api.example.org", environment: environment) == nil)
        #expect(try HTTP2Proxy.fromEnvironment(for: "example.org", environment: environment) == nil)
        #expect(try HTTP2Proxy.fromEnvironment(for: "10.0.0.1", environment: environment) == nil)
        #expect(try HTTP2Proxy.fromEnvironment(for: "LOCALHOST", environment: environment) == nil)
        #expect(try HTTP2Proxy.fromEnvironment(for: "notexample.org", environment: environment) != nil)
        #expect(
            try HTTP2Proxy.fromEnvironment(for: "x", environment: ["https_proxy": "http://p:1", "NO_PROXY": "*"]) == nil
        )
        #expect(try HTTP2Proxy.fromEnvironment(for: "x", environment: [:]) == nil)
        #expect(try HTTP2Proxy.fromEnvironment(for: "x", environment: ["https_proxy": "  "]) == nil)
        let https = #expect(throws: HTTP2ClientError.self) {
            try HTTP2Proxy.fromEnvironment(for: "x", environment: ["https_proxy": "https://user:pw@p:1"])
        }
        #expect(
            https?.reason.hasPrefix("https_proxy: proxy https://user:***@p:1: only an http://host:port proxy") == true)
    }

    @Test(.timeLimit(.minutes(1)))
    func closingThePoolFailsWhatIsInFlightAndWhatComesAfter() async throws {
        let peer = try await H2Peer(certificates: certificates)
        defer { peer.stop() }
        let pool = try pool(peer)
        let waiting = Task {
            await pool.send((0..<2).map { _ in HTTP2ConnectionPool.Request(path: "/never", timeout: 30) })
        }
        while try await stats(peer).waiting < 2 { try await Task.sleep(for: .milliseconds(20)) }
        pool.close()
        for error in failures(of: await waiting.value) {
            #expect(error.kind == .shutDown)
        }
        #expect(pool.connectionCount == 0, "the connection's thread ended before close returned")
        let after = await #expect(throws: HTTP2ClientError.self) { try await pool.send(.init(path: "/echo")) }
        #expect(after?.kind == .shutDown)
        pool.close()
    }
}
