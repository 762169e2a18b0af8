import Foundation
import TernProtocol

/// Preferences and topics: the SDK's reads and writes (JWT only: the person is the JWT's) and the
/// management API's reads. Writes are idempotent: setting a switch to what it is, following a
/// topic followed, or unfollowing one not followed changes nothing and answers the same.
///
/// ```swift
/// let preferences = PreferenceService(store: store)
/// try await preferences.set(PreferencesSetRequest(preferences: ["push": ["marketing": false]]), caller: caller, idempotency: key)
/// ```
struct PreferenceService: Sendable {
    let store: any Store
    let clock: @Sendable () -> Int64

    /// A service over `store`.
    init(store: any Store, clock: @escaping @Sendable () -> Int64 = ServerClock.milliseconds) {
        self.store = store
        self.clock = clock
    }

    /// Every switch the signed-in person set (unset ones are on).
    func get(caller: Caller) async throws -> PreferencesAnswer {
        try await store.read { tx in
            guard let profile = try Self.profile(tx, caller, create: false) else {
                return PreferencesAnswer(preferences: [:])
            }
            return PreferencesAnswer(preferences: try tx.preferences(profileId: profile.id))
        }
    }

    /// Sets the request's switches.
    func set(_ request: PreferencesSetRequest, caller: Caller, idempotency: IdempotencyToken) async throws
        -> Answer
    {
        if let problem = PreferenceRules.problem(request.preferences) { throw APIError.badRequest(problem) }
        let now = clock()
        return try await store.idempotentWrite(idempotency, now: now) { tx in
            guard let profile = try Self.profile(tx, caller, create: true) else { throw Self.noProfile }
            try tx.setPreferences(profileId: profile.id, request.preferences, now: now)
            return try .ok(nil)
        }
    }

    /// Adds the signed-in person to the topic (made on its first follower).
    func follow(_ request: TopicRequest, caller: Caller, idempotency: IdempotencyToken) async throws -> Answer {
        if let problem = PreferenceRules.problem(topic: request.topic) { throw APIError.badRequest(problem) }
        let now = clock()
        return try await store.idempotentWrite(idempotency, now: now) { tx in
            guard let profile = try Self.profile(tx, caller, create: true),
                let topic = try tx.topicId(projectId: caller.project.id, name: request.topic, create: true, now: now)
            else { throw Self.noProfile }
            _ = try tx.follow(topicId: topic, profileId: profile.id, now: now)
            return try .ok(nil)
        }
    }

    /// Removes the signed-in person from the topic.
    func unfollow(_ request: TopicRequest, caller: Caller, idempotency: IdempotencyToken) async throws -> Answer {
        if let problem = PreferenceRules.problem(topic: request.topic) { throw APIError.badRequest(problem) }
        let now = clock()
        return try await store.idempotentWrite(idempotency, now: now) { tx in
            if let profile = try Self.profile(tx, caller, create: false),
                let topic = try tx.topicId(projectId: caller.project.id, name: request.topic, create: false, now: now)
            {
                _ = try tx.unfollow(topicId: topic, profileId: profile.id)
            }
            return try .ok(nil)
        }
    }

    static let noProfile = APIError.notFound("the profile the JWT names does not exist")

    /// The JWT's profile (made for writes, as `profile/update` does); a 401 without a JWT.
    static func profile(_ tx: any StoreTransaction, _ caller: Caller, create: Bool) throws -> Profile? {
        guard caller.hasJWT else {
            throw APIError.unauthorized(
                "Authorization: preferences and topics are a signed-in person's: send the user's JWT (Bearer), "
                    + "not only the rToken")
        }
        let resolver = ProfileResolver(caller: caller, now: ServerClock.milliseconds())
        return create
            ? try resolver.findOrCreate(tx, provider: nil, token: nil)
            : try resolver.find(tx, provider: nil, token: nil)
    }

    // MARK: Management API

    /// A profile's switches.
    func preferences(profilePublicId: String) async throws -> AdminPreferencesView {
        try await store.read { tx in
            guard let profile = try tx.profile(publicId: profilePublicId) else {
                throw APIError.notFound("profile_id: no profile \(profilePublicId.prefix(64))")
            }
            return AdminPreferencesView(
                profileId: profile.publicId, preferences: try tx.preferences(profileId: profile.id))
        }
    }

    /// The project's topics with their follower counts.
    func topics(projectId: Int64) async throws -> [TopicSummary] {
        try await store.read { tx in
            guard try tx.project(id: projectId) != nil else {
                throw APIError.notFound("project_id: project \(projectId) does not exist")
            }
            return try tx.topics(projectId: projectId)
        }
    }

    /// A topic's followers (profile ids), in the order they were made, after `after` (a row id cursor).
    func followers(projectId: Int64, topic name: String, after: Int64, limit: Int) async throws
        -> TopicFollowersView
    {
        if let problem = PreferenceRules.problem(topic: name) { throw APIError.badRequest(problem) }
        return try await store.read { tx in
            guard let topic = try tx.topicId(projectId: projectId, name: name, create: false, now: 0) else {
                throw APIError.notFound("topic: project \(projectId) has no topic \(name)")
            }
            let ids = try tx.followers(topicId: topic, afterProfileId: after, limit: limit)
            let profiles = try ids.compactMap { try tx.profile(id: $0)?.publicId }
            return TopicFollowersView(
                topic: name, profileIds: profiles, next: ids.count == limit ? ids.last : nil)
        }
    }
}

/// `GET /api/v1/admin/profiles/{profile_id}/preferences`.
struct AdminPreferencesView: Codable, Sendable, Equatable {
    var profileId: String
    var preferences: PreferenceMap

    enum CodingKeys: String, CodingKey {
        case preferences
        case profileId = "profile_id"
    }
}

/// `GET /api/v1/admin/projects/{project_id}/topics/{topic}/followers`.
struct TopicFollowersView: Codable, Sendable, Equatable {
    var topic: String
    var profileIds: [String]
    /// Pass as `after` for the next page; nil at the end.
    var next: Int64?

    enum CodingKeys: String, CodingKey {
        case topic, next
        case profileIds = "profile_ids"
    }
}
