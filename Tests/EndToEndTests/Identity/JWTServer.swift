import Foundation
import Synchronization
import TernCore
import TernCrypto
import TernTestSupport

/// A real `tern serve` with an ES256 key registered through the admin API, so the test signs JWTs
/// the server accepts, and a second profile database beside the bootstrap one.
struct JWTServer {
    let process: ServerProcess
    let key: JWTSigningKey
    let kid = "e2e-identity"
    /// The bootstrap database (#1Anonymous in the reference's example).
    let anonymousDatabase: Int64
    /// A database made through the admin API (#2Registered).
    let registeredDatabase: Int64

    static func start() async throws -> JWTServer {
        let process = try await ServerProcess.start()
        let key = try JWTSigningKey.generate(.es256)
        let admin = Admin(process: process)
        let added = try await admin.call(
            "POST", "/projects/\(process.projectId)/jwt-keys",
            json: ["kid": "e2e-identity", "algorithm": "ES256", "key": key.publicKeyPEM ?? ""])
        guard added.status == 201 else { throw FixtureError("adding the JWT key: \(added.text)") }
        let databases = try await admin.call("GET", "/projects/\(process.projectId)/databases")
        guard let first = (databases.jsonArray?.first as? [String: Any])?["id"] as? Int else {
            throw FixtureError("no bootstrap profile database: \(databases.text)")
        }
        let made = try await admin.call(
            "POST", "/projects/\(process.projectId)/databases", json: ["name": "registered"])
        guard made.status == 201, let second = made.json?["id"] as? Int else {
            throw FixtureError("creating the second profile database: \(made.text)")
        }
        return JWTServer(
            process: process, key: key, anonymousDatabase: Int64(first), registeredDatabase: Int64(second))
    }

    /// A JWT valid for an hour whose `matching` claim is `matching` in database `db`.
    func jwt(db: Int64, matching: [String: Any]) throws -> String {
        var matching = matching
        matching["db_id"] = db
        let claims: [String: Any] = [
            "aud": "tern:\(process.projectId)", "exp": Int(Date().timeIntervalSince1970) + 3600, "matching": matching,
        ]
        return try JWT.sign(
            claims: try JSONSerialization.data(withJSONObject: claims), key: key, algorithm: .es256,
            header: ["kid": kid])
    }

    /// The push subscriptions with this APNs token on the bootstrap resource: profile id → status.
    func statuses(token: String) async throws -> [String: String] {
        var components = URLComponents(
            url: process.rootURL("/api/v1/admin/subscriptions"), resolvingAgainstBaseURL: false)!
        components.queryItems = [
            URLQueryItem(name: "resource_id", value: String(process.resourceId)),
            URLQueryItem(name: "subscription_id", value: token), URLQueryItem(name: "provider", value: "ios-apns"),
        ]
        let answer = try await JSONHTTPClient().get(
            components.url!, headers: ["Authorization": "Bearer \(process.adminKey)"])
        guard answer.status == 200 else { throw FixtureError("subscriptions lookup: \(answer.text)") }
        var out: [String: String] = [:]
        for case let row as [String: Any] in answer.jsonArray ?? [] {
            if let profile = row["profile_id"] as? String { out[profile] = row["status"] as? String }
        }
        return out
    }

    struct Admin {
        let process: ServerProcess

        func call(_ method: String, _ path: String, json: Any? = nil) async throws -> JSONHTTPClient.Answer {
            let body = try json.map { try JSONSerialization.data(withJSONObject: $0) }
            var headers = ["Authorization": "Bearer \(process.adminKey)"]
            if body != nil { headers["Content-Type"] = "application/json" }
            return try await JSONHTTPClient().send(
                method, process.rootURL("/api/v1/admin" + path), body: body, headers: headers)
        }
    }
}

/// The app's JWT store: the token the app's backend gave it last (the reference's `JWTManager`).
final class JWTManager: JWTInterface {
    private let current = Mutex<String?>(nil)

    func set(_ token: String?) {
        current.withLock { $0 = token }
    }

    func getToken() -> String? {
        current.withLock { $0 }
    }
}

struct FixtureError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
