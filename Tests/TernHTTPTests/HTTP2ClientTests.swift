import Foundation
import TernHTTP
import TernTestSupport
import Testing

/// The client against a real HTTP/2 peer over TLS with a test CA.
@Suite(.serialized) struct HTTP2ClientTests {
    func stats(_ peer: H2Peer, _ client: HTTP2Client) async throws -> PeerStats {
        try JSONDecoder().decode(
            PeerStats.self, from: try await client.send(HTTP2Request(url: peer.url("/stats"))).body)
    }

    let certificates: TestCertificates

    init() throws {
        certificates = try TestCertificates.make()
    }

    func withPeer(maxStreams: Int = 100, _ body: (H2Peer, HTTP2Client) async throws -> Void) async throws {
        let peer = try await H2Peer(certificates: certificates, maxStreams: maxStreams)
        defer { peer.stop() }
        let client = try HTTP2Client(configuration: .init(caFile: certificates.caFile))
        try await body(peer, client)
    }

    @Test func postsOverHTTP2WithHeadersAndBody() async throws {
        try await withPeer { peer, client in
            try SampleEcho.check(
                try await client.send(
                    HTTP2Request(
                        method: "POST", url: peer.url("/echo"), headers: SampleEcho.headers, body: SampleEcho.body)))
        }
    }

    @Test func statusAndHeadersOfErrorsAreAnswersNotThrows() async throws {
        try await withPeer { peer, client in
            let response = try await client.send(HTTP2Request(method: "POST", url: peer.url("/status/410")))
            #expect(response.status == 410)
            #expect(response.header("x-peer") == "h2peer")
            #expect(response.body == Data(#"{"reason":"as asked"}"#.utf8))
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func concurrentRequestsShareOneConnectionAsStreams() async throws {
        try await withPeer { peer, client in
            // The peer answers /barrier/30 only when 30 streams wait at once.
            let count = 30
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<count {
                    group.addTask { try await client.send(HTTP2Request(url: peer.url("/barrier/\(count)"))).status }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(statuses == Array(repeating: 200, count: count))
            let stats = try await stats(peer, client)
            #expect(stats.connections == 1)
            #expect(stats.max_open_streams >= count)
        }
    }

    @Test func manySequentialAndParallelRequestsAllComplete() async throws {
        try await withPeer { peer, client in
            let connections = try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<300 {
                    group.addTask {
                        let response = try await client.send(
                            HTTP2Request(method: "POST", url: peer.url("/echo"), body: Data("\(index)".utf8)))
                        let echo = try JSONDecoder().decode(PeerEcho.self, from: response.body)
                        #expect(echo.body == "\(index)")
                        return echo.connection
                    }
                }
                return try await group.reduce(into: Set<Int>()) { $0.insert($1) }
            }
            #expect(connections.count == 1)
        }
    }

    @Test func largeAnswerArrivesWhole() async throws {
        try await withPeer { peer, client in
            let response = try await client.send(HTTP2Request(url: peer.url("/size/300000")))
            #expect(response.body.count == 300_000)
        }
    }

    @Test func answerOverTheLimitFails() async throws {
        let peer = try await H2Peer(certificates: certificates)
        defer { peer.stop() }
        var configuration = HTTP2Client.Configuration(caFile: certificates.caFile)
        configuration.maxResponseBytes = 1000
        let client = try HTTP2Client(configuration: configuration)
        let error = await #expect(throws: HTTP2ClientError.self) {
            try await client.send(HTTP2Request(url: peer.url("/size/5000")))
        }
        #expect(error?.kind == .responseTooLarge)
    }

    @Test func requestTimeoutFailsWithTheReason() async throws {
        try await withPeer { peer, client in
            let error = await #expect(throws: HTTP2ClientError.self) {
                try await client.send(HTTP2Request(url: peer.url("/never"), timeout: 0.3))
            }
            #expect(error?.kind == .timeout)
            #expect(error?.reason.hasPrefix("GET \(peer.url("/never").absoluteString) timed out after 300 ms") == true)
            // The connection still serves other streams.
            let next = try await client.send(HTTP2Request(url: peer.url("/status/200")))
            #expect(next.status == 200)
        }
    }

    @Test func untrustedCertificateFailsAsTLS() async throws {
        let peer = try await H2Peer(certificates: certificates)
        defer { peer.stop() }
        let stranger = try TestCertificates.make()
        let client = try HTTP2Client(configuration: .init(caFile: stranger.caFile))
        let error = await #expect(throws: HTTP2ClientError.self) {
            try await client.send(HTTP2Request(url: peer.url("/echo")))
        }
        #expect(error?.kind == .tls)
    }

    @Test func refusedConnectionFailsAsConnect() async throws {
        let peer = try await H2Peer(certificates: certificates)
        let url = peer.url("/echo")
        peer.stop()
        let client = try HTTP2Client(configuration: .init(caFile: certificates.caFile))
        let error = await #expect(throws: HTTP2ClientError.self) { try await client.send(HTTP2Request(url: url)) }
        #expect(error?.kind == .connect)
    }

    @Test(.timeLimit(.minutes(1)))
    func cancellingTheTaskResetsTheStreamInFlight() async throws {
        try await withPeer { peer, client in
            let task = Task { try await client.send(HTTP2Request(url: peer.url("/never"), timeout: 60)) }
            while try await stats(peer, client).waiting == 0 { await Task.yield() }
            task.cancel()
            await #expect(throws: CancellationError.self) { try await task.value }
            while try await stats(peer, client).resets == 0 { await Task.yield() }
            let after = try await stats(peer, client)
            #expect(after.waiting == 0)
            #expect(after.connections == 1)
        }
    }

    @Test func requestCancelledBeforeItStartsIsNotSent() async throws {
        try await withPeer { peer, client in
            let task = Task {
                withUnsafeCurrentTask { $0?.cancel() }
                return try await client.send(HTTP2Request(url: peer.url("/never"), timeout: 60))
            }
            await #expect(throws: CancellationError.self) { try await task.value }
            let after = try await stats(peer, client)
            #expect(after.waiting == 0)
            #expect(after.requests == 1 && after.resets == 0, "only the stats request reached the peer")
        }
    }

    @Test func afterGoawayRequestsGoOverANewConnection() async throws {
        try await withPeer { peer, client in
            let first = try JSONDecoder().decode(
                PeerEcho.self, from: try await client.send(HTTP2Request(url: peer.url("/echo"))).body)
            #expect(try await client.send(HTTP2Request(url: peer.url("/goaway"))).status == 200)
            // A request that races the GOAWAY onto the closing connection fails as `.transport`
            // (libcurl 7.88 cannot tell that the peer never processed it); the caller's retry goes
            // over a new connection.
            var answer: HTTP2Response?
            for _ in 0..<2 where answer == nil {
                do {
                    answer = try await client.send(HTTP2Request(url: peer.url("/echo")))
                } catch let error as HTTP2ClientError {
                    #expect(error.kind == .transport)
                }
            }
            let second = try JSONDecoder().decode(PeerEcho.self, from: try #require(answer).body)
            #expect(second.connection != first.connection)
        }
    }

    @Test func cleartextHTTP2WithPriorKnowledge() async throws {
        let peer = try await H2Peer(certificates: nil)
        defer { peer.stop() }
        var configuration = HTTP2Client.Configuration()
        configuration.cleartextHTTP2 = true
        let client = try HTTP2Client(configuration: configuration)
        let response = try await client.send(
            HTTP2Request(method: "PUT", url: peer.url("/echo", tls: false), body: Data("x".utf8)))
        #expect(response.httpVersion == "2")
        #expect(try JSONDecoder().decode(PeerEcho.self, from: response.body).method == "PUT")
    }

    @Test func badRequestsAreRefusedBeforeSending() async throws {
        let client = try HTTP2Client()
        let error = await #expect(throws: HTTP2ClientError.self) {
            try await client.send(HTTP2Request(url: URL(string: "https://127.0.0.1/")!, headers: [("x-bad", "a\r\nb")]))
        }
        #expect(error?.kind == .invalidRequest)
        let scheme = await #expect(throws: HTTP2ClientError.self) {
            try await client.send(HTTP2Request(url: URL(string: "ftp://127.0.0.1/")!))
        }
        #expect(scheme?.reason == "ftp://127.0.0.1/: only https and http URLs are supported")
        #expect(throws: HTTP2ClientError.self) { try HTTP2Client(configuration: .init(caFile: "/nonexistent/ca.pem")) }
    }
}
