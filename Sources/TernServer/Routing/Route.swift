import Foundation
import TernHTTP

/// A request matched to a route: the HTTP request, the path's parameters, and its id for the logs.
public struct RouteRequest: Sendable {
    public let http: HTTPRequest
    public let parameters: [String: String]
    public let requestId: String

    /// The path parameter `name` as an integer, or a 400 that says which.
    public func integer(_ name: String) throws(APIError) -> Int64 {
        guard let text = parameters[name] ?? http.query[name], let value = Int64(text) else {
            throw .badRequest("\(name) must be an integer")
        }
        return value
    }
}

/// One method and path template (`/api/v1/admin/resources/{resource_id}`) with its handler.
public struct Route: Sendable {
    public let method: String
    public let pattern: String
    let segments: [Segment]
    let handler: @Sendable (RouteRequest) async throws -> HTTPResponse

    enum Segment: Sendable, Equatable {
        case literal(String)
        case parameter(String)
    }

    public init(
        _ method: String, _ pattern: String, _ handler: @escaping @Sendable (RouteRequest) async throws -> HTTPResponse
    ) {
        self.method = method
        self.pattern = pattern
        self.handler = handler
        segments = Route.split(pattern).map { part in
            part.hasPrefix("{") && part.hasSuffix("}")
                ? .parameter(String(part.dropFirst().dropLast())) : .literal(String(part))
        }
    }

    /// The parameters when `path` fits the template.
    func match(_ parts: [Substring]) -> [String: String]? {
        guard parts.count == segments.count else { return nil }
        var parameters: [String: String] = [:]
        for (segment, part) in zip(segments, parts) {
            switch segment {
            case .literal(let literal): guard part == literal else { return nil }
            case .parameter(let name):
                guard !part.isEmpty else { return nil }
                parameters[name] = String(part)
            }
        }
        return parameters
    }

    static func split(_ path: String) -> [Substring] {
        path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map { $0 }
    }
}
