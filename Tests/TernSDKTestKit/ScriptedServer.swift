import Foundation
import TernHTTP

/// A real HTTP server on loopback standing in for the Tern API: it records every request and
/// answers what the test scripts (in order, then a fallback; 200 with an empty envelope unless told),
/// and can hold requests to show what the SDK does while one is in flight.
public final class ScriptedServer: Sendable {
    private actor Log {
        var requests: [HTTPRequest] = []
        var script: [HTTPResponse]
        var fallback: HTTPResponse
        /// Which requests wait for ``release()``; nil while nothing is held.
        var holds: ((HTTPRequest) -> Bool)?
        var heldRequests: [CheckedContinuation<Void, Never>] = []

        init(script: [HTTPResponse], fallback: HTTPResponse) {
            self.script = script
            self.fallback = fallback
        }

        func answer(_ request: HTTPRequest) async -> HTTPResponse {
            requests.append(request)
            if holds?(request) == true {
                await withCheckedContinuation { heldRequests.append($0) }
            }
            return script.isEmpty ? fallback : script.removeFirst()
        }

        func enqueue(_ responses: [HTTPResponse]) { script.append(contentsOf: responses) }
        func setFallback(_ response: HTTPResponse) { fallback = response }
        func hold(path: String?) { holds = { path == nil || $0.path == path } }

        func release() {
            holds = nil
            for request in heldRequests { request.resume() }
            heldRequests = []
        }
    }

    /// 200 with an empty envelope.
    public static let ok = ScriptedServer.ok()

    private let log: Log
    private let server: HTTPServer

    /// Answers the `script` in order, then `fallback`. Every request counts: a test brings up only
    /// the modules it scripts (`TestSDK(modules:)`), so no other module's own requests take an answer.
    public init(script: [HTTPResponse] = [], fallback: HTTPResponse = ScriptedServer.ok()) throws {
        let log = Log(script: script, fallback: fallback)
        self.log = log
        server = try HTTPServer(
            configuration: .init(host: "127.0.0.1", port: 0, threads: 4),
            handler: HTTPHandlerFunction { request in await log.answer(request) })
        try server.start()
    }

    public var apiUrl: String { "http://127.0.0.1:\(server.port)/api/v1" }

    public var requests: [HTTPRequest] {
        get async { await log.requests }
    }

    /// Answers every later request with `response` once the script is used up.
    public func answer(_ response: HTTPResponse) async { await log.setFallback(response) }

    /// Adds `responses` to the script.
    public func enqueue(_ responses: [HTTPResponse]) async { await log.enqueue(responses) }

    /// Keeps later requests (only those to `path`, e.g. `/api/v1/push/unsuspend`, when given)
    /// waiting for their answer until ``release()``.
    public func hold(path: String? = nil) async { await log.hold(path: path) }

    public func release() async { await log.release() }

    public func stop() { server.stop() }

    /// 200 with `{"error":0,"error_text":"","profile":…}`.
    public static func ok(profileJSON: String = "null") -> HTTPResponse {
        .json(200, Data("{\"error\":0,\"error_text\":\"\",\"profile\":\(profileJSON)}".utf8))
    }

    /// An error answer in the envelope.
    public static func failure(_ status: Int, _ text: String, headers: [(String, String)] = []) -> HTTPResponse {
        let quoted = (try? JSONEncoder().encode(text)).map { String(decoding: $0, as: UTF8.self) } ?? "\"\""
        var response = HTTPResponse.json(
            status, Data("{\"error\":\(status),\"error_text\":\(quoted),\"profile\":null}".utf8))
        response.headers.append(contentsOf: headers)
        return response
    }
}

/// The scripted server under the name the SDK's request tests know it by.
public typealias LoopbackAPI = ScriptedServer

extension HTTPResponse {
    /// An error answer in Tern's envelope, as the API sends it.
    public static func envelopeError(_ status: Int, _ text: String) -> HTTPResponse {
        ScriptedServer.failure(status, text)
    }
}

/// A request body as a dictionary.
public func jsonObject(_ data: Data) -> [String: Any] {
    (try? JSONSerialization.jsonObject(with: data) as? [String: Any]) ?? [:]
}
