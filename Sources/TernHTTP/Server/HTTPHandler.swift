/// What answers the server's requests. Called concurrently, from any task.
///
/// ```swift
/// struct Hello: HTTPHandler {
///     func handle(_ request: HTTPRequest) async -> HTTPResponse { .text(200, "hello") }
/// }
/// ```
public protocol HTTPHandler: Sendable {
    func handle(_ request: HTTPRequest) async -> HTTPResponse
}

/// A handler made of a closure.
///
/// ```swift
/// let server = try HTTPServer(configuration: .init(port: 0), handler: HTTPHandlerFunction { _ in .text(200, "ok") })
/// ```
public struct HTTPHandlerFunction: HTTPHandler {
    let body: @Sendable (HTTPRequest) async -> HTTPResponse

    public init(_ body: @escaping @Sendable (HTTPRequest) async -> HTTPResponse) {
        self.body = body
    }

    public func handle(_ request: HTTPRequest) async -> HTTPResponse {
        await body(request)
    }
}
