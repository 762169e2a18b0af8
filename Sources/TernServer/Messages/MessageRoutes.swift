import Foundation
import TernHTTP
import TernProtocol

/// The management API's messages: `POST /api/v1/admin/messages` (idempotent with `Idempotency-Key`),
/// `GET …/{message_id}` (with live counts), `GET …/{message_id}/stats` (the funnel), `GET …/{message_id}/timeline`
/// (the funnel over time) and
/// `GET …/{message_id}/deliveries`, `POST …/{message_id}/cancel`, `PUT …/{message_id}` (an edit before it goes, idempotent too);
/// sending, editing and cancelling need a `send` key, reading a `read` key, of the
/// message's project (or the server key).
struct MessageRoutes: Sendable {
    let messages: MessageService
    let admin: AdminService

    var all: [Route] {
        let messages = messages
        let prefix = AdminRoutes.prefix + "/messages"
        let create = RouteGroup([admin.check(.send, .own), IdempotencyKeys(metrics: nil)]) {
            Route("POST", prefix, name: "admin/messages") { request in
                let message = try JSONBody.decode(MessageRequest.self, from: request.http)
                guard message.winnerOf == nil else {
                    throw APIError.badRequest(
                        "winner_of is set by the server: send an A/B test's winner with POST …/messages/{id}/winner")
                }
                guard message.localDay == nil else {
                    throw APIError.badRequest(
                        "local_day is set by the server on a copy of a weekly message with local_time_of_day: send "
                            + "repeat.weekdays with local_time_of_day instead")
                }
                let answer = try await messages.create(
                    message, idempotency: try request.idempotencyToken(), keyProject: try request.holder().projectId)
                return .json(answer.status, answer.body)
            }
        }
        let read = RouteGroup([admin.check(.read, .message)]) {
            Route.json("GET", "\(prefix)/{message_id}") { request in
                try await messages.message(publicId: request.parameter("message_id"))
            }
            Route.json("GET", "\(prefix)/{message_id}/stats") { request in
                try await messages.stats(publicId: request.parameter("message_id"))
            }
            Route.json("GET", "\(prefix)/{message_id}/timeline") { request in
                let bucket = try request.http.query["bucket"].map { text in
                    guard let bucket = TimelineBucket(rawValue: text) else {
                        throw APIError.badRequest(
                            "bucket must be minute, hour or day (or left out to have one chosen), not \"\(text.prefix(32))\""
                        )
                    }
                    return bucket
                }
                return try await messages.timeline(publicId: request.parameter("message_id"), bucket: bucket)
            }
            Route.json("GET", "\(prefix)/{message_id}/deliveries") { request in
                let query = request.http.query
                guard let after = Int64(query["after"] ?? "0"), after >= 0 else {
                    throw APIError.badRequest("after must be a delivery id (a non-negative integer)")
                }
                guard let limit = Int(query["limit"] ?? "100"), (1...1000).contains(limit) else {
                    throw APIError.badRequest("limit must be an integer from 1 to 1000")
                }
                return try await messages.deliveries(
                    publicId: request.parameter("message_id"), afterId: after, limit: limit)
            }
        }
        let cancel = RouteGroup([admin.check(.send, .message)]) {
            Route.json("POST", "\(prefix)/{message_id}/cancel") { request in
                try await messages.cancel(publicId: request.parameter("message_id"))
            }
            Route.json("POST", "\(prefix)/{message_id}/winner", status: 201) { request in
                let body = try JSONBody.decode(WinnerRequest.self, from: request.http)
                return try await messages.sendWinner(publicId: request.parameter("message_id"), variant: body.variant)
            }
        }
        let edit = RouteGroup([admin.check(.send, .message), IdempotencyKeys(metrics: nil)]) {
            Route("PUT", "\(prefix)/{message_id}", name: "admin/messages/edit") { request in
                let message = try JSONBody.decode(MessageRequest.self, from: request.http)
                let answer = try await messages.edit(
                    publicId: request.parameter("message_id"), message, idempotency: try request.idempotencyToken(),
                    keyProject: try request.holder().projectId)
                return .json(answer.status, answer.body)
            }
        }
        return create.all + read.all + cancel.all + edit.all
    }
}

/// `POST …/messages/{message_id}/winner`: the version of the A/B test that won.
struct WinnerRequest: Codable, Sendable {
    /// Its letter: `a` for the first version.
    var variant: String
}
