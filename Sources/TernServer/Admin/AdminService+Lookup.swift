import Foundation
import TernCrypto
import TernProtocol

extension AdminService {
    func pixels(projectId: Int64) async throws -> [Pixel] {
        try await store.read { tx in
            try Self.project(tx, projectId)
            return try tx.pixels(projectId: projectId)
        }
    }

    /// Creates a pixel; without `sid`, a random one.
    func createPixel(projectId: Int64, _ request: AdminRequests.CreatePixel) async throws -> Pixel {
        let sid = request.sid ?? Digest.randomHex(bytes: 8)
        try Validation.text(sid, field: "sid", max: 128)
        let name = request.name ?? sid
        let now = clock()
        return try await conflicts("project \(projectId) already has a pixel with sid \(sid)") {
            try await store.write { tx in
                try Self.project(tx, projectId)
                return try tx.createPixel(projectId: projectId, sid: sid, name: name, now: now)
            }
        }
    }

    /// Sets the project's frequency cap (nil removes it) and answers the project. A message still
    /// fanning out follows the new cap from its next chunk.
    func setFrequencyCap(projectId: Int64, _ cap: FrequencyCap?) async throws -> Project {
        if let cap {
            guard FrequencyCap.pushesRange.contains(cap.pushes) else {
                throw APIError.badRequest(
                    "pushes must be 1 to \(FrequencyCap.pushesRange.upperBound) messages a person, not \(cap.pushes) "
                        + "(DELETE the cap to remove it)")
            }
            guard FrequencyCap.hoursRange.contains(cap.hours) else {
                throw APIError.badRequest(
                    "hours must be 1 to \(FrequencyCap.hoursRange.upperBound) (30 days), not \(cap.hours)")
            }
        }
        return try await store.write { tx in
            try Self.project(tx, projectId)
            try tx.setFrequencyCap(projectId: projectId, cap)
            return try Self.project(tx, projectId)
        }
    }

    func deletePixel(projectId: Int64, sid: String) async throws {
        guard try await store.write({ try $0.deletePixel(projectId: projectId, sid: sid) }) else {
            throw APIError.notFound("project \(projectId) has no pixel with sid \(sid.prefix(128))")
        }
    }

    func goals(projectId: Int64, sid: String, limit: Int) async throws -> [GoalRecord] {
        try await store.read { tx in
            guard let pixel = try tx.pixel(projectId: projectId, sid: sid) else {
                throw APIError.notFound("project \(projectId) has no pixel with sid \(sid.prefix(128))")
            }
            return try tx.goals(pixelId: pixel.id, limit: limit)
        }
    }

    func jwtKeys(projectId: Int64) async throws -> [JWTKeyView] {
        try await store.read { tx in
            try Self.project(tx, projectId)
            return try tx.jwtKeys(projectId: projectId).map(JWTKeyView.init)
        }
    }

    /// Adds a verification key after checking that it can verify tokens of its algorithm.
    func addJWTKey(projectId: Int64, _ request: AdminRequests.AddJWTKey) async throws -> JWTKeyView {
        try Validation.text(request.kid, field: "kid", max: 128)
        try verifier.checkKey(request.key, algorithm: request.algorithm)
        let now = clock()
        return try await conflicts("project \(projectId) already has a key with kid \(request.kid)") {
            try await store.write { tx in
                try Self.project(tx, projectId)
                return JWTKeyView(
                    try tx.addJWTKey(
                        projectId: projectId, kid: request.kid, algorithm: request.algorithm, key: request.key,
                        now: now))
            }
        }
    }

    func deleteJWTKey(projectId: Int64, kid: String) async throws {
        guard try await store.write({ try $0.deleteJWTKey(projectId: projectId, kid: kid) }) else {
            throw APIError.notFound("project \(projectId) has no key with kid \(kid.prefix(128))")
        }
    }

    func profile(publicId: String) async throws -> ProfileView {
        try await store.read { tx in
            guard let profile = try tx.profile(publicId: publicId) else {
                throw APIError.notFound("profile \(publicId.prefix(64)) does not exist")
            }
            return try Self.view(tx, profile)
        }
    }

    /// Everything kept about the profile (``ProfileExport``).
    func exportProfile(publicId: String) async throws -> ProfileExport {
        let now = clock()
        return try await store.read { tx in try ProfileExport.read(tx, publicId: publicId, now: now) }
    }

    /// Erases the profile (``ProfileEraser``): what went, by kind.
    func eraseProfile(publicId: String) async throws -> ProfileErasure {
        try await ProfileEraser(store: store, clock: clock).erase(publicId: publicId)
    }

    /// Profiles of a database by email, phone, or a field's value.
    func findProfiles(dbId: Int64, field: String, value: JSONValue) async throws -> [ProfileView] {
        try await store.read { tx in
            try tx.profiles(dbId: dbId, field: field, value: value).map { try Self.view(tx, $0) }
        }
    }

    /// Subscriptions with a push token (or another channel's address) on a resource, in every profile.
    func findSubscriptions(resourceId: Int64, channel: SubscriptionChannel, provider: PushProvider?, token: String)
        async throws
        -> [SubscriptionView]
    {
        try await store.read { tx in
            try tx.subscriptions(resourceId: resourceId, channel: channel, provider: provider, token: token).map {
                SubscriptionView(
                    $0, profileId: try tx.profile(id: $0.profileId)?.publicId ?? "",
                    tags: try tx.tags(subscriptionId: $0.id))
            }
        }
    }

    func pushEvents(messageId: String) async throws -> [PushEventRecord] {
        try await store.read { try $0.pushEvents(messageId: messageId) }
    }

    static func view(_ tx: any StoreTransaction, _ profile: Profile) throws -> ProfileView {
        ProfileView(
            profile: profile,
            fields: try tx.profileFields(profileId: profile.id),
            subscriptions: try tx.subscriptions(profileId: profile.id).map {
                SubscriptionView($0, profileId: profile.publicId, tags: try tx.tags(subscriptionId: $0.id))
            },
            usualOpenHour: try tx.usualOpenHours(profileIds: [profile.id])[profile.id])
    }
}
