import Foundation
import TernCrypto

/// What a fresh server hands its operator: `DIR/bootstrap.json`.
public struct BootstrapInfo: Codable, Sendable, Equatable {
    /// The id of the project the first start created; management requests name it as `project_id`.
    public var projectId: Int64
    /// The id of the push resource the first start created, whose rToken ``rToken`` is.
    public var resourceId: Int64
    /// The push resource's rToken: apps send it (or a JWT) with every SDK request.
    public var rToken: String
    /// The admin key, in clear text: it is written only to this file (the store keeps a digest), so
    /// keep the file private (it is created with mode 0600).
    public var adminKey: String
    /// The API's base URL from the server's host and port, e.g. `http://127.0.0.1:8080/api/v1`;
    /// rewritten when either changes.
    public var apiURL: String

    enum CodingKeys: String, CodingKey {
        case projectId = "project_id"
        case resourceId = "resource_id"
        case rToken = "rtoken"
        case adminKey = "admin_key"
        case apiURL = "api_url"
    }
}

/// Makes sure the store has something to serve and `bootstrap.json` describes it.
///
/// - Empty store: creates a project, a profile database, one push resource with an rToken, and an
///   admin key.
/// - Store and a valid `bootstrap.json`: reuses them, rewriting `api_url` when host or port changed.
/// - Store without a usable `bootstrap.json`: issues a new admin key for the first push resource
///   (only a digest of the old key is stored, so it cannot be recovered).
public enum Bootstrapper {
    /// What ``Bootstrapper/run(store:path:apiURL:now:)`` found and did.
    public enum Outcome: Sendable, Equatable {
        /// The store was empty: a project, a profile database, a push resource and an admin key were made.
        case created
        /// The store and `bootstrap.json` matched: nothing was made (`api_url` may have been rewritten).
        case reused
        /// The store had a push resource but no usable `bootstrap.json`: a new admin key was issued for it.
        case reissued
    }

    /// Brings the store and `bootstrap.json` into agreement: creates what an empty store lacks, reuses a
    /// valid file (rewriting its `api_url` when `apiURL` differs), or issues a new admin key.
    ///
    /// - Parameters:
    ///   - store: The server's store.
    ///   - path: Where `bootstrap.json` is read and written (mode 0600, replaced atomically).
    ///   - apiURL: The API's base URL to record in the file.
    ///   - now: The current time in milliseconds since 1970, for the rows it creates.
    /// - Returns: The file's contents and what was done.
    /// - Throws: The store's error when it cannot be read or written, or a ``ConfigurationError`` when the
    ///   file cannot be written.
    public static func run(store: any Store, path: String, apiURL: String, now: Int64) async throws -> (
        BootstrapInfo, Outcome
    ) {
        if var info = read(path), try await isValid(info, store: store) {
            if info.apiURL != apiURL {
                info.apiURL = apiURL
                try write(info, to: path)
            }
            return (info, .reused)
        }
        let adminKey = "ak_" + Digest.randomHex(bytes: 24)
        let digest = AdminKeys.digest(adminKey)
        let (projectId, resourceId, rToken, outcome) = try await store.write { tx in
            if let resource = try tx.resources(projectId: nil).first(where: \.isPush) {
                try tx.addAdminKey(digest: digest, name: "bootstrap (reissued)", now: now)
                return (resource.projectId, resource.id, resource.rToken, Outcome.reissued)
            }
            let project = try tx.createProject(name: "default", audience: nil, now: now)
            let database = try tx.createDatabase(projectId: project.id, name: "main", now: now)
            let resource = try tx.createResource(
                projectId: project.id, dbId: database.id, name: "push", channels: [.push],
                rToken: "rt_" + Digest.randomHex(bytes: 16), now: now)
            try tx.addAdminKey(digest: digest, name: "bootstrap", now: now)
            return (project.id, resource.id, resource.rToken, Outcome.created)
        }
        let info = BootstrapInfo(
            projectId: projectId, resourceId: resourceId, rToken: rToken, adminKey: adminKey, apiURL: apiURL)
        try write(info, to: path)
        return (info, outcome)
    }

    static func read(_ path: String) -> BootstrapInfo? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        return try? JSONDecoder().decode(BootstrapInfo.self, from: data)
    }

    static func isValid(_ info: BootstrapInfo, store: any Store) async throws -> Bool {
        let digest = AdminKeys.digest(info.adminKey)
        return try await store.read { tx in
            guard let resource = try tx.resource(id: info.resourceId), try tx.hasAdminKey(digest: digest) else {
                return false
            }
            return resource.rToken == info.rToken && resource.projectId == info.projectId
        }
    }

    /// Writes the file with mode 0600, atomically (a temporary file renamed over it).
    static func write(_ info: BootstrapInfo, to path: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        var data = try encoder.encode(info)
        data.append(0x0A)
        if let problem = PrivateFile.write(data, to: path) { throw ConfigurationError(problem) }
    }
}

/// Admin keys are stored as digests.
enum AdminKeys {
    static func digest(_ key: String) -> String { Digest.sha256Hex("tern-admin-key:" + key) }
}
