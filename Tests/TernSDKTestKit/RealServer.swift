import Foundation
import TernCrypto
import TernTestSupport

/// A real `tern serve` with what the goal tests need: pixels, resources of other channels, and a JWT
/// key registered through the admin API so the test can sign tokens the server accepts.
public struct RealServer {
    public let process: ServerProcess
    public let client = JSONHTTPClient()
    public let signingKey: JWTSigningKey
    public let kid = "sdk-tests"
    public let databaseId: Int

    public static func start() async throws -> RealServer {
        let process = try await ServerProcess.start()
        let key = try JWTSigningKey.generate(.es256)
        var server = RealServer(process: process, signingKey: key, databaseId: 0)
        let added = try await server.admin(
            "POST", "/projects/\(process.projectId)/jwt-keys",
            json: ["kid": server.kid, "algorithm": "ES256", "key": key.publicKeyPEM ?? ""])
        guard added.status == 201 else { throw HarnessError("adding the JWT key: \(added.text)") }
        let databases = try await server.admin("GET", "/projects/\(process.projectId)/databases")
        guard let id = (databases.jsonArray?.first as? [String: Any])?["id"] as? Int else {
            throw HarnessError("no profile database: \(databases.text)")
        }
        server = RealServer(process: process, signingKey: key, databaseId: id)
        return server
    }

    private init(process: ServerProcess, signingKey: JWTSigningKey, databaseId: Int) {
        self.process = process
        self.signingKey = signingKey
        self.databaseId = databaseId
    }

    public var apiUrl: String { process.apiURL.absoluteString }
    public var rToken: String { process.rToken }

    /// A management API call with the bootstrap admin key.
    public func admin(_ method: String, _ path: String, json: Any? = nil) async throws -> JSONHTTPClient.Answer {
        let body = try json.map { try JSONSerialization.data(withJSONObject: $0) }
        return try await client.send(
            method, process.rootURL("/api/v1/admin" + path), body: body,
            headers: ["Authorization": "Bearer \(process.adminKey)"])
    }

    /// A JWT for the profile with this email in the bootstrap database, valid for an hour.
    public func jwt(email: String) throws -> String {
        try jwt(matching: ["email": email])
    }

    /// A JWT whose `matching` claim is `matching` plus the bootstrap database, valid for an hour.
    public func jwt(matching: [String: Any]) throws -> String {
        try jwt(db: Int64(databaseId), matching: matching)
    }

    /// A JWT valid for an hour whose `matching` claim is `matching` in profile database `db`.
    public func jwt(db: Int64, matching: [String: Any]) throws -> String {
        var matching = matching
        matching["db_id"] = db
        let claims: [String: Any] = [
            "aud": "tern:\(process.projectId)", "exp": Int(Date().timeIntervalSince1970) + 3600, "matching": matching,
        ]
        return try JWT.sign(
            claims: try JSONSerialization.data(withJSONObject: claims), key: signingKey, algorithm: .es256,
            header: ["kid": kid])
    }

    /// Creates a profile database in the bootstrap project and returns its id.
    public func database(_ name: String) async throws -> Int64 {
        let made = try await admin("POST", "/projects/\(process.projectId)/databases", json: ["name": name])
        guard made.status == 201, let id = made.json?["id"] as? Int else {
            throw HarnessError("creating profile database \(name): \(made.text)")
        }
        return Int64(id)
    }

    /// The push subscriptions with this APNs token on the bootstrap resource: profile id → status.
    public func statuses(token: String) async throws -> [String: String] {
        var components = URLComponents(
            url: process.rootURL("/api/v1/admin/subscriptions"), resolvingAgainstBaseURL: false)!
        components.queryItems = [
            URLQueryItem(name: "resource_id", value: String(process.resourceId)),
            URLQueryItem(name: "subscription_id", value: token), URLQueryItem(name: "provider", value: "ios-apns"),
        ]
        let answer = try await client.get(components.url!, headers: ["Authorization": "Bearer \(process.adminKey)"])
        guard answer.status == 200 else { throw HarnessError("subscriptions lookup: \(answer.text)") }
        var out: [String: String] = [:]
        for case let row as [String: Any] in answer.jsonArray ?? [] {
            if let profile = row["profile_id"] as? String { out[profile] = row["status"] as? String }
        }
        return out
    }

    /// Creates a pixel and returns its sid.
    public func pixel(_ sid: String) async throws -> String {
        let reply = try await admin("POST", "/projects/\(process.projectId)/pixels", json: ["sid": sid])
        guard reply.status == 201 else { throw HarnessError("creating pixel \(sid): \(reply.text)") }
        return sid
    }

    /// Creates a resource with these channels in the bootstrap database and returns its id.
    public func resource(_ name: String, channels: [String]) async throws -> Int {
        let reply = try await admin(
            "POST", "/resources",
            json: ["project_id": process.projectId, "db_id": databaseId, "name": name, "channels": channels])
        guard reply.status == 201, let id = reply.json?["id"] as? Int else {
            throw HarnessError("creating resource \(name): \(reply.text)")
        }
        return id
    }

    /// Adds a category to a resource.
    public func category(_ name: String, resource: Int) async throws {
        let reply = try await admin("PUT", "/resources/\(resource)/categories/\(name)", json: ["title": name])
        guard reply.status == 200 else { throw HarnessError("adding category \(name): \(reply.text)") }
    }

    /// The pixel's goals as the server stored them, newest first.
    public func goals(sid: String) async throws -> [[String: Any]] {
        let reply = try await admin("GET", "/projects/\(process.projectId)/pixels/\(sid)/goals")
        guard reply.status == 200 else { throw HarnessError("reading goals of \(sid): \(reply.text)") }
        return reply.jsonArray?.compactMap { $0 as? [String: Any] } ?? []
    }

    /// The profile with this email, with its fields and subscriptions.
    public func profile(email: String) async throws -> [String: Any]? {
        var components = URLComponents(
            url: process.rootURL("/api/v1/admin/profiles"), resolvingAgainstBaseURL: false)!
        components.queryItems = [
            URLQueryItem(name: "db_id", value: String(databaseId)), URLQueryItem(name: "email", value: email),
        ]
        let reply = try await client.get(components.url!, headers: ["Authorization": "Bearer \(process.adminKey)"])
        guard reply.status == 200 else { throw HarnessError("looking up \(email): \(reply.text)") }
        return reply.jsonArray?.first as? [String: Any]
    }

    /// A profile by its public id, with its fields and subscriptions (each with its tags).
    public func profile(id: String) async throws -> [String: Any]? {
        let reply = try await admin("GET", "/profiles/\(id)")
        guard reply.status == 200 else { throw HarnessError("reading profile \(id): \(reply.text)") }
        return reply.json
    }

    /// An SDK request made directly (for calls the test stands in for), with the rToken and a JWT.
    public func sdk(_ path: String, json: Any, jwt: String?) async throws -> JSONHTTPClient.Answer {
        var headers = ["X-Tern-RToken": process.rToken]
        if let jwt { headers["Authorization"] = "Bearer \(jwt)" }
        return try await client.post(process.url(path), json: json, headers: headers)
    }

    public func stop() async { await process.stop() }
}

public struct HarnessError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
