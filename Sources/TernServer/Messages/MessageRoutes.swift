import Foundation
import TernHTTP
import TernProtocol

/// The management API's messages: `POST /api/v1/admin/messages`, `GET …/{message_id}` (with live
/// counts), `GET …/{message_id}/stats` (the funnel) and `GET …/{message_id}/deliveries`.
public struct MessageRoutes: Sendable {
    let messages: MessageService
    let admin: AdminService

    public init(messages: MessageService, admin: AdminService) {
        self.messages = messages
        self.admin = admin
    }

    public var all: [Route] {
        let messages = messages
        let prefix = AdminRoutes.prefix + "/messages"
        return [
            raw("POST", prefix) { request in
                let message = try JSONBody.decode(MessageRequest.self, from: request.http)
                let token = try IdempotencyToken(
                    projectId: 0, caller: "admin", key: request.http.header(Wire.idempotencyKeyHeader),
                    endpoint: "admin/messages",
                    body: request.http.body)
                let answer = try await messages.create(message, idempotency: token)
                return .json(answer.status, answer.body)
            },
            guarded("GET", "\(prefix)/{message_id}") { request in
                try await messages.message(publicId: request.parameters["message_id"] ?? "")
            },
            guarded("GET", "\(prefix)/{message_id}/stats") { request in
                try await messages.stats(publicId: request.parameters["message_id"] ?? "")
            },
            guarded("GET", "\(prefix)/{message_id}/deliveries") { request in
                let query = request.http.query
                guard let after = Int64(query["after"] ?? "0"), after >= 0 else {
                    throw APIError.badRequest("after must be a delivery id (a non-negative integer)")
                }
                guard let limit = Int(query["limit"] ?? "100"), (1...1000).contains(limit) else {
                    throw APIError.badRequest("limit must be an integer from 1 to 1000")
                }
                return try await messages.deliveries(
                    publicId: request.parameters["message_id"] ?? "", afterId: after, limit: limit)
            },
        ]
    }

    private func guarded<Output: Encodable & Sendable>(
        _ method: String, _ pattern: String, _ body: @escaping @Sendable (RouteRequest) async throws -> Output
    ) -> Route {
        raw(method, pattern) { request in .json(200, try JSONCoders.encoder.encode(try await body(request))) }
    }

    /// A route behind the admin key.
    private func raw(
        _ method: String, _ pattern: String, _ body: @escaping @Sendable (RouteRequest) async throws -> HTTPResponse
    ) -> Route {
        let admin = admin
        return Route(method, pattern) { request in
            try await admin.requireAdminKey(request)
            return try await body(request)
        }
    }
}
