import Foundation

/// The answer a handler gives: status, headers and body.
///
/// ```swift
/// return .json(200, try JSONEncoder().encode(envelope))
/// ```
public struct HTTPResponse: Sendable {
    /// The HTTP status code.
    public var status: Int
    /// Header fields in order (`Content-Type` etc.). The server sets `Content-Length` and `Date` itself.
    public var headers: [(String, String)]
    /// The body bytes.
    public var body: Data

    public init(status: Int, headers: [(String, String)] = [], body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A JSON answer (`Content-Type: application/json`).
    public static func json(_ status: Int, _ body: Data) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", "application/json")], body: body)
    }

    /// A text answer, UTF-8 plain text unless `contentType` says otherwise.
    public static func text(
        _ status: Int, _ body: String, contentType: String = "text/plain; charset=utf-8"
    ) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", contentType)], body: Data(body.utf8))
    }

    /// The value of the first header named `name` (case-insensitive).
    public func header(_ name: String) -> String? {
        headers.first { HeaderName.same($0.0, name) }?.1
    }

    /// The server's own error answers when the application words none: the reason as plain text.
    public static func plainError(_ status: Int, _ reason: String) -> HTTPResponse {
        .text(status, reason)
    }
}
