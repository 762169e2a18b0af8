import Foundation
import TernCrypto
import TernHTTP
import TernProtocol

/// What makes a write idempotent: the client's key, if it sent one, and a digest of what it asked.
public struct IdempotencyToken: Sendable, Equatable {
    /// Keys are unique within a project.
    public let scope: String
    public let key: String?
    public let fingerprint: String

    /// Checks the key's shape; the fingerprint covers the endpoint and the body's bytes.
    public init(projectId: Int64, key: String?, endpoint: String, body: Data) throws(APIError) {
        if let key {
            let printable = key.unicodeScalars.allSatisfy { $0.value >= 0x21 && $0.value <= 0x7E }
            guard !key.isEmpty, key.count <= Wire.maxIdempotencyKeyLength, printable else {
                throw .badRequest(
                    "\(Wire.idempotencyKeyHeader) must be 1 to \(Wire.maxIdempotencyKeyLength) printable ASCII "
                        + "characters without spaces, e.g. a UUID")
            }
        }
        scope = String(projectId)
        self.key = key
        var material = Data(endpoint.utf8)
        material.append(0)
        material.append(body)
        fingerprint = Digest.sha256Hex(material)
    }
}

/// Reads the `Idempotency-Key` header into the request's ``IdempotencyToken`` (scoped to the
/// caller's project, or to project 0 on the admin API; fingerprinting the route's name and the
/// body), and counts the answers that were replayed.
struct IdempotencyKeys: RouteMiddleware {
    let metrics: Metrics?

    func respond(to request: RouteRequest, next: Route.Handler) async throws -> HTTPResponse {
        var request = request
        request.idempotency = try IdempotencyToken(
            projectId: request.caller?.project.id ?? 0, key: request.http.header(Wire.idempotencyKeyHeader),
            endpoint: request.routeName, body: request.http.body)
        let response = try await next(request)
        if response.header(Answer.replayedHeader) != nil { metrics?.recordReplay() }
        return response
    }
}

extension Store {
    /// Runs a change once per idempotency key: the first 2xx answer is stored in the same transaction
    /// as the change; a repeat with the same request gets it back and changes nothing; a repeat with a
    /// different request is refused with 422. Errors are not stored, so a corrected retry can succeed.
    public func idempotentWrite(
        _ token: IdempotencyToken, now: Int64, _ body: @escaping @Sendable (any StoreTransaction) throws -> Answer
    ) async throws -> Answer {
        try await write { tx in
            if let key = token.key, let stored = try tx.storedAnswer(scope: token.scope, key: key) {
                guard stored.fingerprint == token.fingerprint else {
                    throw APIError.unprocessable(
                        "\(Wire.idempotencyKeyHeader) was already used for a different request (another endpoint "
                            + "or body): send a new key for a new request")
                }
                return Answer(status: stored.status, body: stored.body, replayed: true)
            }
            let answer = try body(tx)
            if let key = token.key, (200..<300).contains(answer.status) {
                let stored = StoredAnswer(fingerprint: token.fingerprint, status: answer.status, body: answer.body)
                try tx.storeAnswer(scope: token.scope, key: key, answer: stored, now: now)
            }
            return answer
        }
    }
}
