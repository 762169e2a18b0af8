import Foundation
import TernHTTP

/// A real HTTP server on 127.0.0.1 that records every request and answers the envelope (200 unless
/// told otherwise), standing in for the Tern API where a test needs to see the exact bytes sent.
public final class LoopbackAPI: Sendable {
    private actor Log {
        var requests: [HTTPRequest] = []
        var answer: HTTPResponse = LoopbackAPI.ok
        var held = false
        var heldRequests: [CheckedContinuation<Void, Never>] = []

        func record(_ request: HTTPRequest) async -> HTTPResponse {
            requests.append(request)
            if held { await withCheckedContinuation { heldRequests.append($0) } }
            return answer
        }

        func set(_ response: HTTPResponse) { answer = response }

        func hold() { held = true }

        func release() {
            held = false
            for request in heldRequests { request.resume() }
            heldRequests = []
        }
    }

    public static let ok = HTTPResponse.json(200, Data(#"{"error":0,"error_text":"","profile":null}"#.utf8))

    private let log = Log()
    private let server: HTTPServer

    public init() throws {
        let log = log
        server = try HTTPServer(
            configuration: .init(host: "127.0.0.1", port: 0, threads: 2),
            handler: HTTPHandlerFunction { request in await log.record(request) })
        try server.start()
    }

    public var apiUrl: String { "http://127.0.0.1:\(server.port)/api/v1" }

    public var requests: [HTTPRequest] { get async { await log.requests } }

    /// Answers every later request with `response`.
    public func answer(_ response: HTTPResponse) async { await log.set(response) }

    /// Keeps later requests waiting for their answer until ``release()``.
    public func hold() async { await log.hold() }

    public func release() async { await log.release() }

    public func stop() { server.stop() }
}

/// A request body as a dictionary.
public func jsonObject(_ data: Data) -> [String: Any] {
    (try? JSONSerialization.jsonObject(with: data) as? [String: Any]) ?? [:]
}
