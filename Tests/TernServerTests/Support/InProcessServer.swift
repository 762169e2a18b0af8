import Foundation
import TernCrypto
import TernHTTP
import TernProtocol
import TernTestSupport

@testable import TernServer

/// The server's router over a real store (a SQLite file in a temporary directory unless the
/// factory says otherwise: ``StoreFactory/postgres`` gives a fresh schema in the test PostgreSQL),
/// called without sockets: fast tests of the API's behaviour. The process and HTTP tests use
/// ``ServerProcess`` instead.
final class InProcessServer: Sendable {
    let directory: TemporaryDirectory
    let store: any Store
    let router: Router
    let metrics: Metrics
    let bootstrap: BootstrapInfo

    /// `clock`: the time the devices' events (`event/post`, `event/push`) and subscriptions are received at;
    /// `messagesOnClock`: messages are made on it too (else on the real clock).
    init(
        _ factory: StoreFactory = .sqlite, clock: @escaping @Sendable () -> Int64 = ServerClock.milliseconds,
        messagesOnClock: Bool = false
    ) async throws {
        directory = try TemporaryDirectory(prefix: "in-process")
        store = try factory.make(directory)
        metrics = Metrics()
        let messages = messagesOnClock ? MessageService(store: store, clock: clock) : nil
        router = Router(
            routes: TernServerApp.routes(
                store: store, metrics: metrics, benchRoutes: false, messages: messages, credentials: nil,
                endpoints: ProviderEndpoints(), logger: nil, clock: clock),
            metrics: metrics, logger: Logger(minimum: .error, sink: { _ in }))
        bootstrap = try await Bootstrapper.run(
            store: store, path: directory.path("bootstrap.json"), apiURL: "http://test/api/v1", now: 1
        ).0
    }

    func finish() async {
        await store.close()
        directory.remove()
    }

    /// The answer's status and decoded JSON body.
    struct Reply: Sendable {
        let status: Int
        let headers: [(String, String)]
        let body: Data
        var json: [String: Any] { (try? JSONSerialization.jsonObject(with: body) as? [String: Any]) ?? [:] }
        var array: [[String: Any]] { (try? JSONSerialization.jsonObject(with: body) as? [[String: Any]]) ?? [] }
        var errorText: String { json["error_text"] as? String ?? "" }
        var error: Int { json["error"] as? Int ?? -1 }
        var envelope: ResponseEnvelope? { try? JSONDecoder().decode(ResponseEnvelope.self, from: body) }
        var profile: ProfileData? { envelope?.profile }
        func header(_ name: String) -> String? {
            headers.first { $0.0.caseInsensitiveCompare(name) == .orderedSame }?.1
        }
    }

    func send(
        _ method: String, _ path: String, body: Data = Data(), headers: [String: String] = [:],
        query: [String: String] = [:]
    ) async -> Reply {
        var all = headers
        if !body.isEmpty, all["Content-Type"] == nil { all["Content-Type"] = "application/json" }
        let response = await router.handle(
            HTTPRequest(method: method, path: path, query: query, headers: all, body: body))
        return Reply(status: response.status, headers: response.headers, body: response.body)
    }

    /// An SDK call with the bootstrap rToken unless `headers` says otherwise.
    func sdk(
        _ endpoint: Endpoint, _ json: [String: Any], rToken: String? = nil, jwt: String? = nil, key: String? = nil
    ) async throws -> Reply {
        var headers: [String: String] = [:]
        if let jwt {
            headers[Wire.authorizationHeader] = "Bearer \(jwt)"
            if let rToken { headers[Wire.rTokenHeader] = rToken }
        } else {
            headers[Wire.rTokenHeader] = rToken ?? bootstrap.rToken
        }
        if let key { headers[Wire.idempotencyKeyHeader] = key }
        let body = try JSONSerialization.data(withJSONObject: json, options: [.sortedKeys])
        return await send("POST", endpoint.path, body: body, headers: headers)
    }

    /// A management API call with the bootstrap admin key.
    func admin(_ method: String, _ path: String, json: [String: Any]? = nil, query: [String: String] = [:]) async throws
        -> Reply
    {
        let body = try json.map { try JSONSerialization.data(withJSONObject: $0) } ?? Data()
        return await send(
            method, "/api/v1/admin" + path, body: body, headers: ["Authorization": "Bearer \(bootstrap.adminKey)"],
            query: query)
    }

    /// A push subscription body.
    static func subscription(
        token: String = "token-1", time: Int64 = 1000, sync: Bool = true, extra: [String: Any] = [:]
    ) -> [String: Any] {
        var body: [String: Any] = ["time": time, "provider": "ios-apns", "subscription_id": token, "sync": sync]
        body.merge(extra) { _, new in new }
        return body
    }
}

/// Signs test JWTs with a key registered in the server.
struct TestSigner: Sendable {
    let key: JWTSigningKey
    let algorithm: JWTAlgorithm
    let kid: String
    let audience: String

    /// Generates a key and registers it (its public half, or the HS256 secret) through the admin API.
    static func register(
        on server: InProcessServer, algorithm: JWTAlgorithm = .es256, kid: String = "k1", projectId: Int64? = nil
    ) async throws -> TestSigner {
        let project = projectId ?? server.bootstrap.projectId
        let key: JWTSigningKey
        let material: String
        if algorithm == .hs256 {
            let secret = "test-secret-" + String(repeating: "x", count: 32)
            key = JWTSigningKey.hmac(Data(secret.utf8))
            material = secret
        } else {
            key = try JWTSigningKey.generate(algorithm)
            material = key.publicKeyPEM ?? ""
        }
        let reply = try await server.admin(
            "POST", "/projects/\(project)/jwt-keys",
            json: ["kid": kid, "algorithm": algorithm.rawValue, "key": material])
        guard reply.status == 201 else { throw TestFailure() }
        return TestSigner(key: key, algorithm: algorithm, kid: kid, audience: "tern:\(project)")
    }

    /// A token whose `matching` claim is `matching`; `exp` an hour ahead unless given.
    func token(
        _ matching: [String: Any], audience: String? = nil, expires: Date? = Date().addingTimeInterval(3600),
        notBefore: Date? = nil, kid: String? = nil, header: [String: String] = [:]
    ) throws -> String {
        var claims: [String: Any] = ["aud": audience ?? self.audience, "matching": matching, "sub": "test"]
        if let expires { claims["exp"] = Int(expires.timeIntervalSince1970) }
        if let notBefore { claims["nbf"] = Int(notBefore.timeIntervalSince1970) }
        var fields = header
        fields["kid"] = kid ?? self.kid
        return try JWT.sign(
            claims: try JSONSerialization.data(withJSONObject: claims), key: key, algorithm: algorithm, header: fields)
    }
}
