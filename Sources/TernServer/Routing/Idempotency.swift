import Foundation
import TernCrypto
import TernHTTP
import TernProtocol

/// What makes a write idempotent: the client's key, if it sent one, and a digest of what it asked.
public struct IdempotencyToken: Sendable, Equatable {
    /// Keys are unique per project and caller: a key another caller sent is another key.
    let scope: String
    let key: String?
    let fingerprint: String

    /// Checks the key's shape; the fingerprint covers the endpoint and the body's bytes. `caller`
    /// names who sent it (``callerScope(_:)``), so two callers reusing a key never share an answer.
    init(projectId: Int64, caller: String, key: String?, endpoint: String, body: Data) throws(APIError) {
        if let key {
            let printable = key.unicodeScalars.allSatisfy { $0.value >= 0x21 && $0.value <= 0x7E }
            guard !key.isEmpty, key.count <= Wire.maxIdempotencyKeyLength, printable else {
                throw .badRequest(
                    "\(Wire.idempotencyKeyHeader) must be 1 to \(Wire.maxIdempotencyKeyLength) printable ASCII "
                        + "characters without spaces, e.g. a UUID")
            }
        }
        scope = "\(projectId)/\(caller)"
        self.key = key
        fingerprint = Digest.sha256Hex(parts: [Data(endpoint.utf8), Data([0]), body])
    }
}

/// Reads the `Idempotency-Key` header into the request's ``IdempotencyToken`` (scoped to the
/// caller's project, or to project 0 on the admin API, and to the caller within it; fingerprinting the
/// route's name, its path's parameters and the body), and counts the answers that were replayed.
struct IdempotencyKeys: RouteMiddleware {
    let metrics: Metrics?

    func respond(to request: RouteRequest, next: Route.Handler) async throws -> HTTPResponse {
        var request = request
        request.idempotency = try IdempotencyToken(
            projectId: request.caller?.project.id ?? 0,
            caller: request.caller.map(IdempotencyToken.callerScope) ?? "admin",
            key: request.http.header(Wire.idempotencyKeyHeader),
            endpoint: Self.endpoint(request), body: request.http.body)
        let response = try await next(request)
        if response.header(Answer.replayedHeader) != nil { metrics?.recordReplay() }
        return response
    }

    /// The route's name and what its path names (`PUT …/messages/{message_id}` edits one message):
    /// a key sent again for another message is another request (422), not the first one's answer.
    static func endpoint(_ request: RouteRequest) -> String {
        // Every SDK write has none: its name as it is, with nothing sorted or built on that hot path.
        guard !request.parameters.isEmpty else { return request.routeName }
        return request.parameters.sorted { $0.key < $1.key }.reduce(request.routeName) {
            $0 + "\u{0}\($1.key)=\($1.value)"
        }
    }
}

extension IdempotencyToken {
    /// The caller an SDK request's key belongs to: the profile a JWT names (its database and
    /// identity), else the rToken's resource. A digest, so that identities are not stored twice.
    static func callerScope(_ caller: Caller) -> String {
        guard let identity = caller.identity else { return "r\(caller.resource.id)" }
        let named: String
        switch identity {
        case .email(let email): named = "email\u{0}" + email
        case .phone(let phone): named = "phone\u{0}" + phone
        case .profileId(let id): named = "id\u{0}" + id
        case .field(let name, let value): named = "field\u{0}" + name + "\u{0}" + "\(value)"
        case .subscription(let provider, let token): named = "sub\u{0}" + provider + "\u{0}" + token
        }
        return "j\(caller.database.id)." + Digest.sha256Hex(named).prefix(32)
    }
}

extension Store {
    /// Runs a change once per idempotency key: the first 2xx answer is stored in the same transaction
    /// as the change; a repeat with the same request gets it back and changes nothing; a repeat with a
    /// different request is refused with 422. Errors are not stored, so a corrected retry can succeed.
    /// `affinity`: see ``Store/write(affinity:_:)`` (the writes of one device or person).
    public func idempotentWrite(
        _ token: IdempotencyToken, now: Int64, affinity: String? = nil,
        _ body: @escaping @Sendable (any StoreTransaction) throws -> Answer
    ) async throws -> Answer {
        let once: @Sendable (any StoreTransaction) throws -> Answer = { tx in
            guard let key = token.key else { return try body(tx) }
            switch try tx.unlessAnswered(scope: token.scope, key: key, { try body(tx) }) {
            case .found(let stored):
                return try token.replay(stored)
            case .ran(let answer):
                if (200..<300).contains(answer.status) {
                    let stored = StoredAnswer(fingerprint: token.fingerprint, status: answer.status, body: answer.body)
                    try tx.storeAnswer(scope: token.scope, key: key, answer: stored, now: now)
                }
                return answer
            }
        }
        if let affinity { return try await write(affinity: affinity, once) }
        return try await write(once)
    }

    /// The answer stored for the token's key, as its repeat gets it; nil when none is stored (or the
    /// request has no key). For a change that cannot run inside the store's transaction (a request
    /// to a provider): read first, then the change, then ``idempotentWrite(_:now:affinity:_:)``.
    func storedReplay(_ token: IdempotencyToken) async throws -> Answer? {
        guard let key = token.key else { return nil }
        return try await read { try $0.storedAnswer(scope: token.scope, key: key) }.map(token.replay)
    }
}

extension IdempotencyToken {
    /// `stored` as the answer to this request: the same, marked replayed; a 422 when the key's
    /// answer was to another request.
    func replay(_ stored: StoredAnswer) throws(APIError) -> Answer {
        guard stored.fingerprint == fingerprint else {
            throw .unprocessable(
                "\(Wire.idempotencyKeyHeader) was already used for a different request (another endpoint or body): "
                    + "send a new key for a new request")
        }
        return Answer(status: stored.status, body: stored.body, replayed: true)
    }
}
