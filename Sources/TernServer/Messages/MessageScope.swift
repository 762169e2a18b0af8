import Foundation
import TernProtocol

/// The project (whose credentials send it) and the resource a message is about, checked against the store.
struct MessageScope {
    let projectId: Int64
    let resource: Resource?

    /// `keyProject`: the project of the project key that asks (nil for the server key); everything
    /// the message names must be in it, and it is the message's project when it names none.
    static func resolve(_ tx: any StoreTransaction, _ request: MessageRequest, keyProject: Int64? = nil) throws
        -> MessageScope
    {
        let audience = request.audience
        var projects: [(Int64, String)] = []
        if let projectId = request.projectId { projects.append((projectId, "project_id")) }
        var resource: Resource?
        if let resourceId = audience.resourceId {
            guard let found = try tx.resource(id: resourceId) else {
                throw APIError.notFound("resource \(resourceId) does not exist (audience.resource_id)")
            }
            guard found.isPush else {
                throw APIError.badRequest("resource \(resourceId) has no push channel: pick a push resource")
            }
            resource = found
            projects.append((found.projectId, "audience.resource_id"))
        }
        if audience.type == .profile || audience.type == .profiles {
            projects += try profileProjects(tx, FanOut.profileIds(audience))
        }
        if let keyProject {
            if let stranger = projects.first(where: { $0.0 != keyProject }) {
                throw APIError.notFound(
                    "\(stranger.1) is not in project \(keyProject), the only project this key reaches")
            }
            projects.append((keyProject, "the key's project"))
        }
        let distinct = Set(projects.map(\.0))
        guard distinct.count <= 1 else {
            let sources = projects.map { "\($0.1) → project \($0.0)" }.joined(separator: ", ")
            throw APIError.badRequest("the message names more than one project (\(sources)): send one per project")
        }
        var projectId = distinct.first
        if projectId == nil {
            let all = try tx.projects()
            guard all.count == 1 else {
                throw APIError.badRequest(
                    "say which project sends it: add project_id or audience.resource_id (the server has "
                        + "\(all.count) projects)")
            }
            projectId = all[0].id
        }
        guard let projectId, try tx.project(id: projectId) != nil else {
            throw APIError.notFound("project \(projectId ?? 0) does not exist")
        }
        if let resource {
            let names = [request.category].compactMap { $0 } + (audience.categories ?? [])
            let known = Set(try tx.categories(resourceId: resource.id).map(\.name))
            if let missing = names.first(where: { !known.contains($0) }) {
                throw APIError.badRequest(
                    "category \(missing) is not a category of resource \(resource.id): add it "
                        + "(tern categories set \(resource.id) \(missing)) or leave it out")
            }
        }
        return MessageScope(projectId: projectId, resource: resource)
    }

    /// The project of each profile's database; a 404 naming the profiles that do not exist.
    static func profileProjects(_ tx: any StoreTransaction, _ ids: [String]) throws -> [(Int64, String)] {
        var missing: [String] = []
        var projects: [Int64: String] = [:]
        var databases: [Int64: Int64] = [:]
        for id in ids {
            guard let profile = try tx.profile(publicId: id) else {
                missing.append(id)
                continue
            }
            if databases[profile.dbId] == nil {
                databases[profile.dbId] = try tx.database(id: profile.dbId)?.projectId ?? 0
            }
            projects[databases[profile.dbId] ?? 0] = "profile \(id)"
        }
        guard missing.isEmpty else {
            let shown = missing.prefix(10).map { String($0.prefix(64)) }.joined(separator: ", ")
            throw APIError.notFound(
                "no profile with id \(shown)\(missing.count > 10 ? " and \(missing.count - 10) more" : "")")
        }
        return projects.map { ($0.key, $0.value) }.sorted { $0.0 < $1.0 }
    }
}
