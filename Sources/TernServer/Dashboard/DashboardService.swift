import Foundation
import TernProtocol

/// The management API's summaries the dashboard shows: the overview's counts, the message list,
/// and the test devices.
struct DashboardService: Sendable {
    let store: any Store
    let clock: @Sendable () -> Int64

    init(store: any Store, clock: @escaping @Sendable () -> Int64 = ServerClock.milliseconds) {
        self.store = store
        self.clock = clock
    }

    /// Projects, resources, subscriptions by status and provider, the sendable ones by notification
    /// permission, and messages of the last `days` days; with `projectId` (a project key's), that project's only.
    func overview(days: Int, projectId: Int64? = nil) async throws -> Overview {
        let dayMs: Int64 = 86_400_000
        let since = (clock() / dayMs - Int64(days - 1)) * dayMs
        return try await store.read { tx in
            let resources = try tx.resources(projectId: projectId)
            let reached = Set(resources.map(\.id))
            return Overview(
                projects: try tx.projects().filter { projectId == nil || $0.id == projectId },
                resources: resources,
                subscriptions: try tx.subscriptionCounts().filter {
                    projectId == nil || reached.contains($0.resourceId)
                },
                permissions: try tx.permissionCounts().filter {
                    projectId == nil || reached.contains($0.resourceId)
                },
                days: try tx.messageDays(since: since, projectId: projectId))
        }
    }

    /// The newest messages that `filter` lets through, with their live counts; with `before` (a
    /// message id), those older than it. The store narrows the list (the text by a pattern a little
    /// wider than it, ``MessageListFilter/storePattern``); the text is checked here on each request,
    /// read in batches until `limit` are found.
    func messages(before: String?, limit: Int, filter: MessageListFilter = MessageListFilter()) async throws
        -> [MessageView]
    {
        let now = clock()
        return try await store.read { tx in
            var cursor = try before.map { try MessageService.find(tx, $0).id } ?? 0
            guard filter.text != nil else {
                return try tx.messages(matching: filter, beforeId: cursor, limit: limit, now: now).map {
                    try MessageService.view(tx, $0)
                }
            }
            let batch = max(limit, 200)
            var found: [MessageView] = []
            while found.count < limit {
                let read = try tx.messages(matching: filter, beforeId: cursor, limit: batch, now: now)
                for message in read where found.count < limit {
                    let request = try FanOut.request(message)
                    if filter.holdsText(message, request) {
                        found.append(try MessageService.view(tx, message, request: request))
                    }
                }
                guard read.count == batch, let last = read.last else { break }
                cursor = last.id
            }
            return found
        }
    }

    /// The profiles marked as test devices, with their subscriptions; with `projectId`, that project's only.
    func testProfiles(projectId: Int64? = nil) async throws -> [ProfileView] {
        try await store.read { tx in
            try tx.testProfileIds(limit: 100, projectId: projectId).compactMap { id in
                try tx.profile(publicId: id).map { try AdminService.view(tx, $0) }
            }
        }
    }

    /// A profile's newest push events (delivery and open reports), up to `limit`.
    func pushEvents(profileId: String, limit: Int) async throws -> [PushEventRecord] {
        try await store.read { tx in
            guard let profile = try tx.profile(publicId: profileId) else {
                throw APIError.notFound("profile \(profileId.prefix(64)) does not exist")
            }
            return try tx.pushEvents(profileId: profile.id, limit: limit)
        }
    }

    /// Marks a profile as a test device, or unmarks it.
    func setTest(profileId: String, isTest: Bool) async throws -> ProfileView {
        let now = clock()
        return try await store.write { tx in
            guard var profile = try tx.profile(publicId: profileId) else {
                throw APIError.notFound("profile \(profileId.prefix(64)) does not exist")
            }
            profile.isTest = isTest
            profile.updatedAt = now
            try tx.updateProfile(profile)
            return try AdminService.view(tx, profile)
        }
    }

    /// `GET /api/v1/admin/overview`.
    struct Overview: Encodable, Sendable {
        var projects: [Project]
        var resources: [Resource]
        var subscriptions: [SubscriptionCount]
        var permissions: [PermissionCount]
        var days: [MessageDay]
    }

    /// `PUT /api/v1/admin/profiles/{profile_id}/test`.
    struct SetTest: Codable, Sendable {
        var isTest: Bool

        enum CodingKeys: String, CodingKey {
            case isTest = "is_test"
        }
    }
}
