import Foundation
import TernHTTP
import TernProtocol

/// The management API under `/api/v1/admin/`, guarded by `Authorization: Bearer <key>`: each
/// group says what its routes need of the key (its role) and where they name their project.
/// Successes answer plain JSON (an object or a list); errors answer the envelope.
struct AdminRoutes: Sendable {
    static let prefix = "/api/v1/admin"
    let service: AdminService

    var all: [Route] {
        let service = service
        let p = Self.prefix
        let server = RouteGroup([service.check(.server, .server)]) {
            Route.json("POST", "\(p)/projects", status: 201) { request in
                try await service.createProject(
                    try JSONBody.decode(AdminRequests.CreateProject.self, from: request.http))
            }
        }
        let lists = RouteGroup([service.check(.read, .own)]) {
            Route.json("GET", "\(p)/projects") { request in
                try await service.projects(projectId: try request.holder().projectId)
            }
        }
        let readProject = RouteGroup([service.check(.read, .projectPath)]) {
            Route.json("GET", "\(p)/projects/{project_id}/databases") { request in
                try await service.databases(projectId: try request.integer("project_id"))
            }
            Route.json("GET", "\(p)/projects/{project_id}/pixels") { request in
                try await service.pixels(projectId: try request.integer("project_id"))
            }
            Route.json("GET", "\(p)/projects/{project_id}/pixels/{sid}/goals") { request in
                let limit = request.http.query["limit"] == nil ? 100 : Int(try request.integer("limit"))
                guard (1...1000).contains(limit) else { throw APIError.badRequest("limit must be 1 to 1000") }
                return try await service.goals(
                    projectId: try request.integer("project_id"), sid: request.parameter("sid"), limit: limit)
            }
            Route.json("GET", "\(p)/projects/{project_id}/jwt-keys") { request in
                try await service.jwtKeys(projectId: try request.integer("project_id"))
            }
            Route.json("GET", "\(p)/projects/{project_id}/webhooks") { request in
                try await service.webhooks(projectId: try request.integer("project_id"))
            }
        }
        let configureProject = RouteGroup([service.check(.configure, .projectPath)]) {
            Route.json("POST", "\(p)/projects/{project_id}/databases", status: 201) { request in
                try await service.createDatabase(
                    projectId: try request.integer("project_id"),
                    try JSONBody.decode(AdminRequests.CreateDatabase.self, from: request.http))
            }
            Route.json("POST", "\(p)/projects/{project_id}/pixels", status: 201) { request in
                try await service.createPixel(
                    projectId: try request.integer("project_id"),
                    try JSONBody.decode(AdminRequests.CreatePixel.self, from: request.http))
            }
            Route.noContent("DELETE", "\(p)/projects/{project_id}/pixels/{sid}") { request in
                try await service.deletePixel(
                    projectId: try request.integer("project_id"), sid: request.parameter("sid"))
            }
            Route.json("POST", "\(p)/projects/{project_id}/jwt-keys", status: 201) { request in
                try await service.addJWTKey(
                    projectId: try request.integer("project_id"),
                    try JSONBody.decode(AdminRequests.AddJWTKey.self, from: request.http))
            }
            Route.noContent("DELETE", "\(p)/projects/{project_id}/jwt-keys/{kid}") { request in
                try await service.deleteJWTKey(
                    projectId: try request.integer("project_id"), kid: request.parameter("kid"))
            }
            Route.json("PUT", "\(p)/projects/{project_id}/frequency-cap") { request in
                try await service.setFrequencyCap(
                    projectId: try request.integer("project_id"),
                    try JSONBody.decode(FrequencyCap.self, from: request.http))
            }
            Route.json("DELETE", "\(p)/projects/{project_id}/frequency-cap") { request in
                try await service.setFrequencyCap(projectId: try request.integer("project_id"), nil)
            }
            Route.json("POST", "\(p)/projects/{project_id}/webhooks", status: 201) { request in
                try await service.createWebhook(
                    projectId: try request.integer("project_id"),
                    try JSONBody.decode(WebhookRequest.self, from: request.http))
            }
            Route.json("POST", "\(p)/projects/{project_id}/webhooks/{webhook_id}/test", status: 202) { request in
                try await service.testWebhook(
                    projectId: try request.integer("project_id"), id: try request.integer("webhook_id"))
            }
            Route.noContent("DELETE", "\(p)/projects/{project_id}/webhooks/{webhook_id}") { request in
                try await service.deleteWebhook(
                    projectId: try request.integer("project_id"), id: try request.integer("webhook_id"))
            }
        }
        let resourceList = RouteGroup([service.check(.read, .projectQuery)]) {
            Route.json("GET", "\(p)/resources") { request in
                let projectId = request.http.query["project_id"] == nil ? nil : try request.integer("project_id")
                return try await service.resources(projectId: projectId)
            }
        }
        let createResource = RouteGroup([service.check(.configure, .bodyProject)]) {
            Route.json("POST", "\(p)/resources", status: 201) { request in
                try await service.createResource(
                    try JSONBody.decode(AdminRequests.CreateResource.self, from: request.http))
            }
        }
        let readResource = RouteGroup([service.check(.read, .resource)]) {
            Route.json("GET", "\(p)/resources/{resource_id}") { request in
                try await service.resource(id: try request.integer("resource_id"))
            }
            Route.json("GET", "\(p)/resources/{resource_id}/categories") { request in
                try await service.categories(resourceId: try request.integer("resource_id"))
            }
            Route.json("GET", "\(p)/subscriptions") { request in
                let query = request.http.query
                // Checked first: a request without it is refused whatever its channel.
                let resourceId = try request.integer("resource_id")
                guard let token = query["subscription_id"], !token.isEmpty else {
                    throw APIError.badRequest("subscription_id is required (the push token, or the address)")
                }
                let provider = query["provider"] ?? ""
                // An unknown channel has no subscriptions.
                guard let channel = SubscriptionChannel(rawValue: query["channel"] ?? "push") else {
                    return [SubscriptionView]()
                }
                if channel == .push, provider.isEmpty {
                    throw APIError.badRequest(
                        "provider is required for push subscriptions (e.g. \(PushProvider.apns.rawValue))")
                }
                let known = query["provider"] != nil ? try Validation.provider(provider) : nil
                return try await service.findSubscriptions(
                    resourceId: resourceId, channel: channel, provider: known, token: token)
            }
        }
        let configureResource = RouteGroup([service.check(.configure, .resource)]) {
            Route.json("PUT", "\(p)/resources/{resource_id}/categories/{name}") { request in
                try await service.putCategory(
                    resourceId: try request.integer("resource_id"), name: request.parameter("name"),
                    try JSONBody.decode(AdminRequests.PutCategory.self, from: request.http))
            }
            Route.noContent("DELETE", "\(p)/resources/{resource_id}/categories/{name}") { request in
                try await service.deleteCategory(
                    resourceId: try request.integer("resource_id"), name: request.parameter("name"))
            }
        }
        let profiles = RouteGroup([service.check(.read, .database)]) {
            Route.json("GET", "\(p)/profiles") { request in
                let (field, value) = try Self.profileQuery(request.http.query)
                return try await service.findProfiles(
                    dbId: try request.integer("db_id"), field: field, value: value)
            }
        }
        let profile = RouteGroup([service.check(.read, .profile)]) {
            Route.json("GET", "\(p)/profiles/{profile_id}") { request in
                try await service.profile(publicId: request.parameter("profile_id"))
            }
            Route.json("GET", "\(p)/profiles/{profile_id}/export") { request in
                try await service.exportProfile(publicId: request.parameter("profile_id"))
            }
        }
        let erase = RouteGroup([service.check(.configure, .profile)]) {
            Route.json("DELETE", "\(p)/profiles/{profile_id}") { request in
                try await service.eraseProfile(publicId: request.parameter("profile_id"))
            }
        }
        let events = RouteGroup([service.check(.read, .message)]) {
            Route.json("GET", "\(p)/push-events") { request in
                guard let messageId = request.http.query["message_id"], !messageId.isEmpty else {
                    throw APIError.badRequest("message_id is required")
                }
                return try await service.pushEvents(messageId: messageId)
            }
        }
        return [
            server, lists, readProject, configureProject, resourceList, createResource, readResource,
            configureResource, profiles, profile, erase, events,
        ].flatMap(\.all)
    }

    /// `email=`, `phone=`, or `field=` with `value=` (a JSON value, or else a string).
    static func profileQuery(_ query: [String: String]) throws(APIError) -> (String, JSONValue) {
        if let email = query["email"] { return (ProfileIdentity.emailField, .string(email)) }
        if let phone = query["phone"] { return (ProfileIdentity.phoneField, .string(phone)) }
        if let field = query["field"], let text = query["value"] {
            let value = (try? JSONCoders.decoder.decode(JSONValue.self, from: Data(text.utf8))) ?? .string(text)
            return (field, value)
        }
        throw .badRequest("look profiles up by email=, phone=, or field= with value= (and db_id=)")
    }
}
