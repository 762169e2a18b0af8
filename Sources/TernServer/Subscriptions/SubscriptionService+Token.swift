import Foundation
import TernProtocol

extension SubscriptionService {
    /// `push/update`: the subscription with the old provider and token takes the new ones and keeps
    /// its identity (id, hash, fields, categories). When the profile already has a subscription with
    /// the new token, that one is kept and the old one becomes unsubscribed.
    func update(_ request: PushUpdateRequest, caller: Caller, idempotency: IdempotencyToken) async throws
        -> Answer
    {
        let now = clock()
        let newProvider = try Validation.provider(request.provider)
        let oldProvider =
            try request.oldProvider.map { try Validation.provider($0, field: "old_provider") } ?? newProvider
        let oldToken = request.oldSubscriptionId ?? ""
        return try await store.idempotentWrite(
            idempotency, now: now, affinity: caller.writeAffinity(token: oldToken)
        ) { tx in
            let resolver = ProfileResolver(caller: caller, now: now)
            let notFound = APIError.notFound(
                "no push subscription with provider \(oldProvider.rawValue) and the old token in resource "
                    + "\(caller.resource.id) for this profile: subscribe first, then update the token")
            guard
                let (profile, found, others) = try resolver.findWithSubscription(
                    tx, provider: oldProvider, token: oldToken),
                let read = found
            else { throw notFound }
            var old = read
            // The profile's status: its other subscriptions' (`current`'s among them, whose status
            // this write keeps) and the one with the old token's.
            func answer(showing shown: Subscription) throws -> Answer {
                try keptAnswer(tx, profile, shown.values, statuses: others.map { $0 + [old.status] })
            }
            func mine(_ provider: PushProvider, _ token: String) throws -> Subscription? {
                try tx.subscription(of: profile.id, resourceId: caller.resource.id, provider: provider, token: token)
            }
            let events = try SubscriptionEvents(
                tx, directory: store.webhookDirectory, projectId: caller.project.id, now: now)
            let samePlace = oldProvider == newProvider && oldToken == request.subscriptionId
            if !samePlace, let readCurrent = try mine(newProvider, request.subscriptionId) {
                old.status = .unsubscribed
                old.updatedAt = now
                try tx.updateSubscription(old, from: read)
                try events.note(old.values, before: read.values, profile: profile.publicId)
                var current = readCurrent
                current.fields = CustomFields.merge(current.fields, request.customFields)
                current.apnsEnvironment = request.apnsEnvironment ?? current.apnsEnvironment
                current.updatedAt = now
                try tx.updateSubscription(current, from: readCurrent)
                return try answer(showing: current)
            }
            old.provider = newProvider
            old.token = request.subscriptionId
            old.fields = CustomFields.merge(old.fields, request.customFields)
            old.apnsEnvironment = request.apnsEnvironment ?? old.apnsEnvironment
            old.updatedAt = now
            try tx.updateSubscription(old, from: read)
            try events.note(old.values, before: read.values, profile: profile.publicId)
            return try answer(showing: old)
        }
    }

    /// `push/status`: the profile with its latest subscription on the resource, the one with this
    /// token, or the latest with a provider. No profile: `profile` is null; no such subscription:
    /// `profile.subscription` is null.
    func status(_ request: PushStatusRequest, caller: Caller) async throws -> Answer {
        try await store.read { tx in
            let resolver = ProfileResolver(caller: caller, now: 0)
            let provider = try request.provider.map { try Validation.provider($0) }
            guard let profile = try resolver.find(tx, provider: provider, token: request.subscriptionId)
            else { return try .ok(nil) }
            let pushes = try tx.subscriptions(profileId: profile.id).filter {
                $0.resourceId == caller.resource.id && $0.channel == .push
            }
            let chosen: Subscription? =
                switch request.mode {
                case .latest: pushes.first
                case .current:
                    pushes.first { $0.provider == provider && $0.token == request.subscriptionId }
                case .latestForProvider: pushes.first { $0.provider == provider }
                }
            return try keptAnswer(tx, profile, chosen?.values)
        }
    }

    /// `push/unsuspend`, the log-in / log-out transition (JWT only): this token's subscribed
    /// subscriptions in other profiles (any database) become suspended; the JWT profile's suspended
    /// subscription with this token becomes subscribed. Answers the JWT profile (null when it does not
    /// exist) with its subscription for this token (null when it has none).
    func unsuspend(_ request: PushTokenRequest, caller: Caller, idempotency: IdempotencyToken) async throws
        -> Answer
    {
        guard caller.hasJWT else {
            throw APIError.unauthorized(
                "push/unsuspend needs a JWT (Authorization: Bearer <JWT>): it moves the subscription to the "
                    + "profile the JWT names")
        }
        guard let name = request.provider, let token = request.subscriptionId else {
            throw APIError.badRequest("provider and subscription_id are required: send the device's current push token")
        }
        let provider = try Validation.provider(name)
        let now = clock()
        return try await store.idempotentWrite(
            idempotency, now: now, affinity: caller.writeAffinity(token: token)
        ) { tx in
            let profile = try ProfileResolver(caller: caller, now: now).find(tx, provider: provider, token: token)
            let all = try tx.subscriptions(
                resourceId: caller.resource.id, channel: .push, provider: provider, token: token)
            let events = try SubscriptionEvents(
                tx, directory: store.webhookDirectory, projectId: caller.project.id, now: now)
            var own: Subscription?
            var suspended: Set<Int64> = []
            for read in all {
                var subscription = read
                if subscription.profileId == profile?.id {
                    if subscription.status == .suspended {
                        subscription.status = .subscribed
                        subscription.updatedAt = now
                        try tx.updateSubscription(subscription, from: read)
                        try tx.clearTags(subscriptionId: subscription.id)  // a new binding starts untagged
                        try events.note(subscription.values, before: read.values, profile: profile?.publicId)
                    }
                    own = subscription
                } else if subscription.status == .subscribed {
                    subscription.status = .suspended
                    subscription.updatedAt = now
                    try tx.updateSubscription(subscription, from: read)
                    try tx.clearTags(subscriptionId: subscription.id)  // the binding ended
                    try events.note(subscription.values, before: read.values)
                    suspended.insert(subscription.profileId)
                }
            }
            guard let profile else { return try .ok(nil) }
            // A log-in takes the waits of the device's own, anonymous profile along; a log-out leaves
            // the person's with them. A person not made yet gets them at their first subscribe.
            try TriggerWaits.handOver(
                tx, directory: store.triggerDirectory, projectId: caller.project.id, holders: all, ended: suspended,
                to: profile.id, now: now)
            return try keptAnswer(tx, profile, own?.values)
        }
    }
}
