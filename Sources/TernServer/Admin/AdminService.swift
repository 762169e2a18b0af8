import Foundation
import TernCrypto
import TernProtocol

/// The management API's logic: tenancy, categories, pixels, JWT keys, lookups.
struct AdminService: Sendable {
    let store: any Store
    let verifier: any TokenVerifier
    let clock: @Sendable () -> Int64
    /// The management API's keys: who a request is, and the audit log.
    let keys: KeyService

    init(
        store: any Store, verifier: any TokenVerifier, logger: Logger? = nil,
        clock: @escaping @Sendable () -> Int64 = ServerClock.milliseconds
    ) {
        self.store = store
        self.verifier = verifier
        self.clock = clock
        self.keys = KeyService(store: store, logger: logger, clock: clock)
    }

    /// True when `key` is one of the server's server keys (the operator's).
    func isAdminKey(_ key: String) async throws -> Bool {
        let digest = AdminKeys.digest(key)
        return try await store.read { try $0.hasAdminKey(digest: digest) }
    }

    /// The check a management route group runs: a key whose role allows `needs`, reaching `scope`.
    func check(_ needs: Permission, _ scope: AdminKeyCheck.Scope) -> AdminKeyCheck {
        AdminKeyCheck(keys: keys, needs: needs, scope: scope)
    }

    /// Every project, or (`projectId`) only that one.
    func projects(projectId: Int64? = nil) async throws -> [Project] {
        try await store.read { try $0.projects() }.filter { projectId == nil || $0.id == projectId }
    }

    func createProject(_ request: AdminRequests.CreateProject) async throws -> Project {
        try Self.name(request.name, "name")
        if let audience = request.audience { try Self.name(audience, "audience") }
        let now = clock()
        return try await store.write { try $0.createProject(name: request.name, audience: request.audience, now: now) }
    }

    func databases(projectId: Int64) async throws -> [ProfileDatabase] {
        try await store.read { tx in
            try Self.project(tx, projectId)
            return try tx.databases(projectId: projectId)
        }
    }

    func createDatabase(projectId: Int64, _ request: AdminRequests.CreateDatabase) async throws
        -> ProfileDatabase
    {
        try Self.name(request.name, "name")
        let now = clock()
        return try await conflicts("project \(projectId) already has a database named \(request.name)") {
            try await store.write { tx in
                try Self.project(tx, projectId)
                return try tx.createDatabase(projectId: projectId, name: request.name, now: now)
            }
        }
    }

    func resources(projectId: Int64?) async throws -> [Resource] {
        try await store.read { try $0.resources(projectId: projectId) }
    }

    /// Creates a resource with a fresh rToken; without `db_id`, in the project's first database.
    func createResource(_ request: AdminRequests.CreateResource) async throws -> Resource {
        try Self.name(request.name, "name")
        let names = request.channels ?? [SubscriptionChannel.push.rawValue]
        let channels = names.compactMap(SubscriptionChannel.init(rawValue:)).filter { $0 != .inapp }
        guard !channels.isEmpty, channels.count == names.count else {
            throw APIError.badRequest("channels must be a non-empty list of \(SubscriptionChannel.wireNames)")
        }
        let now = clock()
        return try await store.write { tx in
            try Self.project(tx, request.projectId)
            let databases = try tx.databases(projectId: request.projectId)
            guard let database = request.dbId.map({ id in databases.first { $0.id == id } }) ?? databases.first
            else {
                throw APIError.badRequest(
                    "db_id \(request.dbId.map(String.init) ?? "(none)") is not a database of project "
                        + "\(request.projectId): create one first")
            }
            return try tx.createResource(
                projectId: request.projectId, dbId: database.id, name: request.name,
                channels: Array(Set(channels)).sorted { $0.rawValue < $1.rawValue },
                rToken: "rt_" + Digest.randomHex(bytes: 16), now: now)
        }
    }

    func resource(id: Int64) async throws -> ResourceView {
        try await store.read { tx in
            let resource = try Self.resource(tx, id)
            return ResourceView(resource: resource, categories: try tx.categories(resourceId: id))
        }
    }

    func putCategory(resourceId: Int64, name: String, _ request: AdminRequests.PutCategory) async throws
        -> ResourceCategory
    {
        guard FieldName.isValid(name) else {
            throw APIError.badRequest(
                "category name \(name.prefix(64)) is not valid: letters, digits, _ and -, up to 64")
        }
        return try await store.write { tx in
            try Self.resource(tx, resourceId)
            let existing = try tx.categories(resourceId: resourceId).first { $0.name == name }
            let category = ResourceCategory(
                resourceId: resourceId, name: name, title: request.title ?? existing?.title ?? name,
                steady: request.steady ?? existing?.steady ?? false)
            try tx.upsertCategory(category)
            return category
        }
    }

    func deleteCategory(resourceId: Int64, name: String) async throws {
        let deleted = try await store.write { tx in
            try Self.resource(tx, resourceId)
            return try tx.deleteCategory(resourceId: resourceId, name: name)
        }
        guard deleted else { throw APIError.notFound("resource \(resourceId) has no category \(name.prefix(64))") }
    }

    func categories(resourceId: Int64) async throws -> [ResourceCategory] {
        try await resource(id: resourceId).categories
    }

    static func name(_ value: String, _ field: String) throws(APIError) {
        guard !value.trimmingCharacters(in: .whitespaces).isEmpty, TextLength.fits(value, max: 128) else {
            throw .badRequest("\(field) must be 1 to 128 characters")
        }
    }

    @discardableResult
    static func project(_ tx: any StoreTransaction, _ id: Int64) throws -> Project {
        guard let project = try tx.project(id: id) else { throw APIError.notFound("project \(id) does not exist") }
        return project
    }

    @discardableResult
    static func resource(_ tx: any StoreTransaction, _ id: Int64) throws -> Resource {
        guard let resource = try tx.resource(id: id) else { throw APIError.notFound("resource \(id) does not exist") }
        return resource
    }

    /// Runs `body`, turning a uniqueness conflict into a 409 with `reason`.
    func conflicts<T>(_ reason: String, _ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch StoreError.conflict {
            throw APIError.conflict(reason)
        }
    }
}
