import Foundation
import TernCrypto
import TernTestSupport
import Testing

/// A real `tern serve` on loopback, with helpers to act as an operator (admin key), as a device
/// (rToken) or as an app's backend (JWT) of one of several projects.
struct SecurityServer: Sendable {
    let process: ServerProcess
    let client = JSONHTTPClient()

    static func start(_ arguments: [String] = []) async throws -> SecurityServer {
        SecurityServer(process: try await ServerProcess.start(arguments: arguments))
    }

    func stop() async {
        await process.stop()
    }

    /// The bootstrap project.
    var first: Tenant {
        Tenant(projectId: process.projectId, resourceId: process.resourceId, rToken: process.rToken)
    }

    func admin(_ method: String, _ path: String, json: Any? = nil) async throws -> JSONHTTPClient.Answer {
        let body = try json.map { try JSONSerialization.data(withJSONObject: $0) }
        return try await client.send(
            method, URL(string: process.apiURL.absoluteString + "/admin" + path)!, body: body,
            headers: ["Authorization": "Bearer \(process.adminKey)"])
    }

    /// A second project with its own profile database and push resource.
    func createTenant(_ name: String) async throws -> Tenant {
        let project = try await admin("POST", "/projects", json: ["name": name])
        try #require(project.status == 201, "\(project.text)")
        let projectId = try #require(project.json?["id"] as? Int)
        let database = try await admin("POST", "/projects/\(projectId)/databases", json: ["name": "main"])
        try #require(database.status == 201, "\(database.text)")
        let resource = try await admin(
            "POST", "/resources", json: ["project_id": projectId, "name": "app", "channels": ["push"]])
        try #require(resource.status == 201, "\(resource.text)")
        return Tenant(
            projectId: Int64(projectId), resourceId: Int64(try #require(resource.json?["id"] as? Int)),
            rToken: try #require(resource.json?["rtoken"] as? String))
    }

    /// An SDK call: with `jwt` as a Bearer token, else with `rToken`.
    func sdk(
        _ path: String, _ json: Any, rToken: String? = nil, jwt: String? = nil, key: String? = nil
    ) async throws -> JSONHTTPClient.Answer {
        var headers: [String: String] = [:]
        if let rToken { headers["X-Tern-RToken"] = rToken }
        if let jwt { headers["Authorization"] = "Bearer \(jwt)" }
        if let key { headers["Idempotency-Key"] = key }
        return try await client.post(process.url(path), json: json, headers: headers)
    }

    func sdk(_ path: String, body: Data, rToken: String) async throws -> JSONHTTPClient.Answer {
        try await client.post(process.url(path), body: body, headers: ["X-Tern-RToken": rToken])
    }

    /// Registers an HS256 secret for `tenant`'s project under `kid`; returns a signer for it.
    func hs256Signer(_ tenant: Tenant, kid: String = "k1") async throws -> Signer {
        let secret = "security-suite-secret-" + kid + String(repeating: "s", count: 32)
        let reply = try await admin(
            "POST", "/projects/\(tenant.projectId)/jwt-keys", json: ["kid": kid, "algorithm": "HS256", "key": secret])
        try #require(reply.status == 201, "\(reply.text)")
        let resources = try await admin("GET", "/resources?project_id=\(tenant.projectId)")
        let resource = try #require(resources.jsonArray?.first as? [String: Any], "\(resources.text)")
        return Signer(
            secret: Data(secret.utf8), kid: kid, audience: "tern:\(tenant.projectId)",
            dbId: try #require(resource["db_id"] as? Int), resourceId: Int(tenant.resourceId))
    }
}

/// One project as its devices see it.
struct Tenant: Sendable {
    let projectId: Int64
    let resourceId: Int64
    let rToken: String
}

/// Signs HS256 tokens by hand, so a test controls every byte of the header and claims.
struct Signer: Sendable {
    let secret: Data
    let kid: String
    let audience: String
    let dbId: Int
    let resourceId: Int

    func claims(email: String, expires: Date = Date().addingTimeInterval(3600)) -> [String: Any] {
        [
            "aud": audience, "exp": Int(expires.timeIntervalSince1970), "sub": email,
            "matching": ["email": email, "db_id": dbId, "resource_id": resourceId],
        ]
    }

    func token(header: [String: Any]? = nil, claims: [String: Any]) throws -> String {
        let head = header ?? ["alg": "HS256", "typ": "JWT", "kid": kid]
        let input =
            Base64URL.encode(try JSONSerialization.data(withJSONObject: head, options: [.sortedKeys])) + "."
            + Base64URL.encode(try JSONSerialization.data(withJSONObject: claims, options: [.sortedKeys]))
        return input + "." + Base64URL.encode(Digest.hmacSHA256(key: secret, data: Data(input.utf8)))
    }

    func token(email: String) throws -> String {
        try token(claims: claims(email: email))
    }
}

func subscription(_ token: String, fields: [String: Any]? = nil) -> [String: Any] {
    var body: [String: Any] = ["time": 1000, "provider": "ios-apns", "subscription_id": token, "sync": true]
    if let fields { body["custom_fields"] = fields }
    return body
}
