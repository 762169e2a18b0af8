import Foundation
import TernHTTP

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What the echo handler saw, sent back as JSON.
struct Echo: Codable, Equatable {
    var method: String
    var path: String
    var query: [String: String]
    var headers: [String: String]
    var body: String
    var remoteAddress: String?
}

/// Answers every request with an `Echo` of it.
struct EchoHandler: HTTPHandler {
    func handle(_ request: HTTPRequest) async -> HTTPResponse {
        let echo = Echo(
            method: request.method, path: request.path, query: request.query, headers: request.headers,
            body: String(decoding: request.body, as: UTF8.self), remoteAddress: request.remoteAddress)
        return .json(200, try! JSONEncoder().encode(echo))
    }
}

/// A started server on a free loopback port, stopped by the caller.
///
/// Its deadlines are five minutes, not the defaults' 30 s, unless `configure` sets them: the whole
/// test run shares two cooperative threads, and a raw client resumed late between two of its steps
/// (after a `100 Continue`, say) would otherwise see its connection closed as idle, which is not
/// what these tests are about. The tests of the deadlines themselves set their own.
func startServer(
    _ handler: any HTTPHandler, configure: (inout HTTPServer.Configuration) -> Void = { _ in }
) throws -> HTTPServer {
    var configuration = HTTPServer.Configuration(port: 0, threads: 2)
    configuration.connectionTimeoutSeconds = 300
    configuration.headTimeoutSeconds = 300
    configuration.bodyTimeoutSeconds = 300
    configure(&configuration)
    let server = try HTTPServer(configuration: configuration, handler: handler, errorResponse: envelopeError)
    try server.start()
    return server
}

/// One request through URLSession.
func fetch(
    _ server: HTTPServer, _ pathAndQuery: String, method: String = "GET", headers: [String: String] = [:],
    body: Data? = nil
) async throws -> (status: Int, headers: [String: String], body: Data) {
    var request = URLRequest(url: URL(string: "http://127.0.0.1:\(server.port)\(pathAndQuery)")!)
    request.httpMethod = method
    request.httpBody = body
    for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
    let (data, response) = try await URLSession.shared.data(for: request)
    let http = response as! HTTPURLResponse
    var fields: [String: String] = [:]
    for (key, value) in http.allHeaderFields {
        fields[String(describing: key).lowercased()] = String(describing: value)
    }
    return (http.statusCode, fields, data)
}

/// Lets a test hold handlers inside `handle` until it says so, and know when they got there.
actor Gate {
    private var arrived = 0
    private var open = false
    private var arrivalWaiters: [(Int, CheckedContinuation<Void, Never>)] = []
    private var openWaiters: [CheckedContinuation<Void, Never>] = []

    /// Called by a handler: counts the arrival, then waits until the gate opens.
    func pass() async {
        arrived += 1
        let ready = arrivalWaiters.filter { $0.0 <= arrived }
        arrivalWaiters.removeAll { $0.0 <= arrived }
        ready.forEach { $0.1.resume() }
        if open { return }
        await withCheckedContinuation { openWaiters.append($0) }
    }

    /// Waits until `count` handlers have arrived.
    func waitForArrivals(_ count: Int) async {
        if arrived >= count { return }
        await withCheckedContinuation { arrivalWaiters.append((count, $0)) }
    }

    func release() {
        open = true
        openWaiters.forEach { $0.resume() }
        openWaiters.removeAll()
    }
}

/// The server's own errors in Tern's envelope, as `tern serve` words them (the tests read them so).
let envelopeError: HTTPServer.ErrorResponse = { status, reason in
    let quoted = String(decoding: (try? JSONEncoder().encode(reason)) ?? Data(), as: UTF8.self)
    return .json(status, Data("{\"error\":\(status),\"error_text\":\(quoted),\"profile\":null}".utf8))
}
