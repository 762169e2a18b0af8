import Foundation
import TernProtocol

/// `profile/authenticate` and `profile/update`.
struct ProfileService: Sendable {
    let store: any Store
    let clock: @Sendable () -> Int64

    init(store: any Store, clock: @escaping @Sendable () -> Int64 = ServerClock.milliseconds) {
        self.store = store
        self.clock = clock
    }

    /// With a JWT: the profile it names, created when absent (its identity stored as a field), with the
    /// device's subscription if the request names the token. With an rToken only: the profile holding
    /// the token, or null.
    func authenticate(_ request: PushTokenRequest, caller: Caller, idempotency: IdempotencyToken)
        async throws -> Answer
    {
        let now = clock()
        let provider = try request.provider.map { try Validation.provider($0) }
        return try await store.idempotentWrite(
            idempotency, now: now, affinity: caller.writeAffinity(token: request.subscriptionId)
        ) { tx in
            let resolver = ProfileResolver(caller: caller, now: now)
            let profile: Profile?
            if caller.hasJWT {
                profile = try resolver.findOrCreate(tx, provider: provider, token: request.subscriptionId)
            } else {
                profile = try resolver.find(tx, provider: provider, token: request.subscriptionId)
            }
            guard let profile else { return try .ok(nil) }
            let subscription = try provider.flatMap { provider in
                try request.subscriptionId.flatMap { token in
                    try tx.subscription(
                        of: profile.id, resourceId: caller.resource.id, provider: provider, token: token)
                }
            }
            return try .ok(ProfilePresenter.profileData(tx, profile: profile, subscription: subscription?.values))
        }
    }

    /// `profile/update` (JWT only): applies the fields and operations to the profile the JWT names,
    /// creating it when absent. Answers the profile without a subscription.
    func update(_ request: ProfileUpdateRequest, caller: Caller, idempotency: IdempotencyToken) async throws
        -> Answer
    {
        guard caller.hasJWT else {
            throw APIError.unauthorized(
                "profile/update needs a JWT (Authorization: Bearer <JWT>): an rToken does not name a profile")
        }
        let now = clock()
        return try await store.idempotentWrite(
            idempotency, now: now, affinity: caller.writeAffinity(token: nil)
        ) { tx in
            let resolver = ProfileResolver(caller: caller, now: now)
            let profile = try resolver.findOrCreate(tx, provider: nil, token: nil)
            let updated = try resolver.applyProfileChanges(
                tx, to: profile, fields: request.profileFields, skipTriggers: request.skipTriggers,
                triggers: store.triggerDirectory)
            return try .ok(ProfilePresenter.profileData(tx, profile: updated, subscription: nil))
        }
    }
}
