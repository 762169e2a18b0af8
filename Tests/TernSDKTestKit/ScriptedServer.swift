import Foundation
import TernHTTP

/// A real HTTP server on loopback whose answers a test scripts, recording every request.
public final class ScriptedServer: Sendable {
    private actor Log {
        var requests: [HTTPRequest] = []
        var script: [HTTPResponse] = []
        var fallback: HTTPResponse

        init(fallback: HTTPResponse) { self.fallback = fallback }

        func answer(_ request: HTTPRequest) -> HTTPResponse {
            requests.append(request)
            return script.isEmpty ? fallback : script.removeFirst()
        }

        func enqueue(_ responses: [HTTPResponse]) { script.append(contentsOf: responses) }
        func setFallback(_ response: HTTPResponse) { fallback = response }
    }

    private let log: Log
    private let server: HTTPServer

    /// Answers the `script` in order, then `fallback` (200 with an empty envelope unless told).
    public init(script: [HTTPResponse] = [], fallback: HTTPResponse = ScriptedServer.ok()) throws {
        let log = Log(fallback: fallback)
        self.log = log
        server = try HTTPServer(
            configuration: .init(host: "127.0.0.1", port: 0, threads: 4),
            handler: HTTPHandlerFunction { request in await log.answer(request) })
        try server.start()
        if !script.isEmpty {
            let semaphore = DispatchSemaphore(value: 0)
            Task {
                await log.enqueue(script)
                semaphore.signal()
            }
            semaphore.wait()
        }
    }

    public var apiUrl: String { "http://127.0.0.1:\(server.port)/api/v1" }

    public var requests: [HTTPRequest] {
        get async { await log.requests }
    }

    public func stop() { server.stop() }

    /// 200 with `{"error":0,"error_text":"","profile":…}`.
    public static func ok(profileJSON: String = "null") -> HTTPResponse {
        .json(200, Data("{\"error\":0,\"error_text\":\"\",\"profile\":\(profileJSON)}".utf8))
    }

    /// An error answer in the envelope.
    public static func failure(_ status: Int, _ text: String, headers: [(String, String)] = []) -> HTTPResponse {
        var response = HTTPResponse.json(
            status, Data("{\"error\":\(status),\"error_text\":\"\(text)\",\"profile\":null}".utf8))
        response.headers.append(contentsOf: headers)
        return response
    }
}
