import Foundation
import TernProtocol

/// `profile/tags/set` and `profile/tags/remove`: tags of the install's current binding — the push
/// subscription of the request's token in the profile the request names (the JWT's; with an rToken,
/// the profile holding the token). Push log-in/log-out (`push/unsuspend`) and `replace` clear the
/// tags of the bindings they end or start, so tags never follow a device into another profile.
struct TagService: Sendable {
    let store: any Store
    let clock: @Sendable () -> Int64

    init(store: any Store, clock: @escaping @Sendable () -> Int64 = ServerClock.milliseconds) {
        self.store = store
        self.clock = clock
    }

    /// Adds or overwrites the tags; answers the profile with the binding's subscription. A tag that
    /// takes a new value starts the person's waits for the resource's messages it triggers
    /// (``MessageTrigger/tagSet``).
    func set(_ request: TagsSetRequest, caller: Caller, idempotency: IdempotencyToken) async throws -> Answer {
        let provider = try request.validate()
        let now = clock()
        return try await store.idempotentWrite(
            idempotency, now: now, affinity: caller.writeAffinity(token: request.subscriptionId)
        ) { tx in
            let (profile, subscription) = try Self.binding(
                tx, caller: caller, provider: provider, token: request.subscriptionId)
            let current = try tx.tags(subscriptionId: subscription.id)
            let total = current.merging(request.tags) { _, new in new }.count
            guard total <= TagLimits.maxPerBinding else {
                throw APIError.badRequest(
                    "the binding would have \(total) tags: keep at most \(TagLimits.maxPerBinding) "
                        + "(remove some with profile/tags/remove)")
            }
            try tx.setTags(subscriptionId: subscription.id, request.tags, now: now)
            try TriggerWaits.noteTagsSet(
                tx, directory: store.triggerDirectory, resourceId: subscription.resourceId, profile: profile,
                before: current, tags: request.tags, now: now)
            return try .ok(ProfilePresenter.profileData(tx, profile: profile, subscription: subscription.values))
        }
    }

    /// Removes the keys; answers the profile with the binding's subscription.
    func remove(_ request: TagsRemoveRequest, caller: Caller, idempotency: IdempotencyToken) async throws
        -> Answer
    {
        let provider = try request.validate()
        let now = clock()
        return try await store.idempotentWrite(
            idempotency, now: now, affinity: caller.writeAffinity(token: request.subscriptionId)
        ) { tx in
            let (profile, subscription) = try Self.binding(
                tx, caller: caller, provider: provider, token: request.subscriptionId)
            try tx.removeTags(subscriptionId: subscription.id, keys: request.keys)
            return try .ok(ProfilePresenter.profileData(tx, profile: profile, subscription: subscription.values))
        }
    }

    /// The profile and its push subscription for this token on the caller's resource.
    static func binding(_ tx: any StoreTransaction, caller: Caller, provider: PushProvider, token: String) throws -> (
        Profile, Subscription
    ) {
        let resolver = ProfileResolver(caller: caller, now: 0)
        guard let profile = try resolver.find(tx, provider: provider, token: token) else {
            throw APIError.notFound(
                caller.hasJWT
                    ? "the profile the JWT names does not exist yet: subscribe the device (push/subscribe) first"
                    : "no profile holds this push token on resource \(caller.resource.id): subscribe the device "
                        + "(push/subscribe) before setting tags")
        }
        guard
            let subscription = try tx.subscription(
                of: profile.id, resourceId: caller.resource.id, provider: provider, token: token)
        else {
            throw APIError.notFound(
                "profile \(profile.publicId) has no push subscription with this token on resource "
                    + "\(caller.resource.id): subscribe (or unSuspend after log-in) before setting tags")
        }
        return (profile, subscription)
    }
}

extension TagsSetRequest {
    /// Everything that can be checked without the store; the binding's provider.
    @discardableResult
    func validate() throws(APIError) -> PushProvider {
        let known = try Validation.provider(provider)
        try Validation.token(subscriptionId)
        if let problem = TagLimits.problem(count: tags.count, field: "tags") { throw .badRequest(problem) }
        try TagLimits.check(tags)
        return known
    }
}

extension TagLimits {
    /// Refuses the first of `tags` (in key order) whose key or value cannot be a tag, naming it:
    /// what `profile/tags/set` and `devices/import` check alike.
    static func check(_ tags: [String: String]) throws(APIError) {
        for (key, value) in tags.sorted(by: { $0.key < $1.key }) {
            if let problem = problem(key: key) ?? problem(key: key, value: value) { throw .badRequest(problem) }
        }
    }
}

extension TagsRemoveRequest {
    @discardableResult
    func validate() throws(APIError) -> PushProvider {
        let known = try Validation.provider(provider)
        try Validation.token(subscriptionId)
        if let problem = TagLimits.problem(count: keys.count, field: "keys") { throw .badRequest(problem) }
        for key in keys {
            if let problem = TagLimits.problem(key: key) { throw .badRequest(problem) }
        }
        return known
    }
}
