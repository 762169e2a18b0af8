import Foundation
import TernCrypto

/// What a fresh server hands its operator: `DIR/bootstrap.json`.
public struct BootstrapInfo: Codable, Sendable, Equatable {
    public var projectId: Int64
    public var resourceId: Int64
    public var rToken: String
    public var adminKey: String
    public var apiURL: String

    public init(projectId: Int64, resourceId: Int64, rToken: String, adminKey: String, apiURL: String) {
        self.projectId = projectId
        self.resourceId = resourceId
        self.rToken = rToken
        self.adminKey = adminKey
        self.apiURL = apiURL
    }

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
    public enum Outcome: Sendable, Equatable {
        case created, reused, reissued
    }

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
public enum AdminKeys {
    public static func digest(_ key: String) -> String { Digest.sha256Hex("tern-admin-key:" + key) }
}
