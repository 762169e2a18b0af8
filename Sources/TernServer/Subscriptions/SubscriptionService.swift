import Foundation
import TernCrypto
import TernProtocol

/// Push subscriptions: subscribe, suspend, unsubscribe, token updates, status, log-in/log-out.
struct SubscriptionService: Sendable {
    let store: any Store
    let clock: @Sendable () -> Int64
    /// The resources' categories each subscribe checks and answers with (``CategoryCache`` says for
    /// how long, and why).
    let categoryCache: CategoryCache

    init(
        store: any Store, clock: @escaping @Sendable () -> Int64 = ServerClock.milliseconds,
        categoryCache: CategoryCache = CategoryCache()
    ) {
        self.store = store
        self.clock = clock
        self.categoryCache = categoryCache
    }

    /// `push/subscribe`, `push/suspend`, `push/unsubscribe`: sets the status of the subscription
    /// (resource, provider, token) of the caller's profile, creating profile and subscription when
    /// absent. A change older (by `time`) than the one applied last changes nothing. A subscription
    /// that became subscribed starts the resource's welcomes (``MessageTrigger/subscribed``), and a
    /// profile field that took a new value the project's messages it triggers
    /// (``MessageTrigger/fieldSet``), unless `startsWaits` is false (device import: devices that
    /// subscribed, and fields set, long ago, through another SDK).
    /// `imported` is what a device import writes besides (its test mark and tags), in the same
    /// write and only when the change applies.
    func change(
        _ request: PushSubscriptionRequest, to status: SubscriptionStatus, caller: Caller,
        idempotency: IdempotencyToken, startsWaits: Bool = true, imported: ImportedBinding? = nil
    ) async throws -> Answer {
        guard caller.resource.isPush else {
            throw APIError.badRequest(
                "resource \(caller.resource.id) has no push channel: use the rToken of a push resource")
        }
        let now = clock()
        return try await store.idempotentWrite(
            idempotency, now: now, affinity: caller.writeAffinity(token: request.subscriptionId)
        ) { tx in
            let provider = try Validation.provider(request.provider)
            let resolver = ProfileResolver(caller: caller, now: now)
            let named = (request.cats ?? []).compactMap(\.name)
            let categories = try categoryCache.categories(resourceId: caller.resource.id, naming: named) {
                try tx.categories(resourceId: caller.resource.id)
            }
            try Validation.categories(named, in: categories)
            var (profile, existing, created, others) = try resolver.findOrCreateWithSubscription(
                tx, provider: provider, token: request.subscriptionId)

            if let existing, request.time < existing.clientTime {
                return try Self.answer(
                    tx, request.sync, profile, existing.values, categories: categories,
                    statuses: others.map { $0 + [existing.status] })
            }
            // A profile made just now (every new device's): its fields and subscriptions are known,
            // not read back (on PostgreSQL each read is a round trip).
            profile = try resolver.applyProfileChanges(
                tx, to: profile, fields: request.profileFields, skipTriggers: request.skipTriggers,
                knownFields: created ? resolver.fieldsOfCreatedProfile() : nil,
                triggers: startsWaits ? store.triggerDirectory : nil)

            let change = SubscriptionChange(
                to: status, existing: existing, cats: request.cats, customFields: request.customFields,
                time: request.time, isTest: imported?.isTest)
            let events = try SubscriptionEvents(
                tx, directory: store.webhookDirectory, projectId: caller.project.id, now: now)
            let subscription: SubscriptionValues
            if var existing {
                existing.apnsEnvironment = request.apnsEnvironment ?? existing.apnsEnvironment
                subscription = try change.update(existing, tx, now: now).values
            } else {
                // Its id is not part of the answer: the insert goes with the next statement.
                subscription = SubscriptionValues(
                    profileId: profile.id, resourceId: caller.resource.id, channel: .push,
                    provider: provider, token: request.subscriptionId, status: status,
                    hashId: Self.hashId(profile, caller.resource.id, provider.rawValue, request.subscriptionId),
                    fields: change.fields, cats: change.cats, clientTime: request.time,
                    apnsEnvironment: request.apnsEnvironment, isTest: imported?.isTest ?? false)
                try tx.addSubscription(subscription, now: now)
            }
            if let imported, !imported.tags.isEmpty {
                // A new row's id is read back (after its insert) only when there are tags to write.
                guard
                    let id = try existing?.id
                        ?? tx.subscription(
                            of: profile.id, resourceId: caller.resource.id, provider: provider,
                            token: request.subscriptionId)?.id
                else { throw StoreError.backend("the subscription just written could not be read back") }
                try imported.writeTags(tx, subscriptionId: id, fresh: existing == nil, time: request.time)
            }
            try events.note(subscription, before: existing?.values, profile: profile.publicId)
            // Waits that follow the device come before the welcomes: a welcome it began before the
            // log-in keeps its time.
            if created, caller.hasJWT, subscription.status == .subscribed {
                try followLogIn(
                    tx, caller: caller, to: profile, provider: provider, token: request.subscriptionId, now: now)
            }
            if request.replace == true {
                let (holders, left) = try Self.unsubscribeOthers(
                    tx, keeping: profile, provider: provider, token: request.subscriptionId, now: now, events: events)
                // The device's own, anonymous profile handing it over: its waits go with it.
                if subscription.status == .subscribed, !left.isEmpty {
                    try TriggerWaits.handOver(
                        tx, directory: store.triggerDirectory, projectId: caller.project.id, holders: holders,
                        ended: left, to: profile.id, now: now)
                }
            }
            if startsWaits, subscription.becameSubscribed(from: existing?.values) {
                try TriggerWaits.noteSubscribed(
                    tx, directory: store.triggerDirectory, resourceId: caller.resource.id, profile: profile, now: now)
            }
            // `replace` changed other profiles' subscriptions only.
            return try Self.answer(
                tx, request.sync, profile, subscription, categories: categories,
                statuses: others.map { $0 + [subscription.status] })
        }
    }

    /// A person's first subscribe with a JWT, made after a log-in's `push/unsuspend` that found no
    /// profile of theirs to move the device to (the SDK subscribes them then): the device's own,
    /// anonymous profile, suspended by it, hands its waits over
    /// (``TriggerWaits/handOver(_:directory:projectId:holders:ended:to:now:)``). Only for a profile
    /// this subscribe made, and only in a project with triggered messages: one lookup of the token.
    func followLogIn(
        _ tx: any StoreTransaction, caller: Caller, to profile: Profile, provider: PushProvider, token: String,
        now: Int64
    ) throws {
        guard !(try store.triggerDirectory.triggers(tx, projectId: caller.project.id, now: now)).isEmpty else { return }
        let all = try tx.subscriptions(resourceId: caller.resource.id, channel: .push, provider: provider, token: token)
        try TriggerWaits.handOver(
            tx, directory: store.triggerDirectory, projectId: caller.project.id, holders: all,
            ended: Set(all.filter { $0.status == .suspended }.map(\.profileId)), to: profile.id, now: now)
    }

    /// `replace`: other profiles' subscriptions with this token in the same database become unsubscribed.
    /// Answers the token's subscriptions in the database as they were read, and the profiles whose
    /// subscription was subscribed.
    static func unsubscribeOthers(
        _ tx: any StoreTransaction, keeping profile: Profile, provider: PushProvider, token: String, now: Int64,
        events: SubscriptionEvents
    ) throws -> (holders: [Subscription], left: Set<Int64>) {
        let holders = try tx.subscriptions(dbId: profile.dbId, provider: provider, token: token)
        var left: Set<Int64> = []
        for read in holders where read.profileId != profile.id && read.status != .unsubscribed {
            if read.status == .subscribed { left.insert(read.profileId) }
            var other = read
            other.status = .unsubscribed
            other.updatedAt = now
            try tx.updateSubscription(other, from: read)
            try events.note(other.values, before: read.values)
            try tx.clearTags(subscriptionId: other.id)  // the binding ended
        }
        return (holders, left)
    }

    /// The profile with `subscription`, its categories titled from its resource's as kept
    /// (``CategoryCache``; read again when the subscription names one the kept list lacks): on
    /// PostgreSQL a round trip fewer for an update of the token or a status.
    func keptAnswer(
        _ tx: any StoreTransaction, _ profile: Profile, _ subscription: SubscriptionValues?,
        statuses: [SubscriptionStatus]? = nil
    ) throws -> Answer {
        let categories = try subscription.map { shown in
            try categoryCache.categories(resourceId: shown.resourceId, naming: shown.cats.keys) {
                try tx.categories(resourceId: shown.resourceId)
            }
        }
        return try Self.answer(tx, true, profile, subscription, categories: categories, statuses: statuses)
    }

    static func answer(
        _ tx: any StoreTransaction, _ sync: Bool, _ profile: Profile, _ subscription: SubscriptionValues?,
        categories: [ResourceCategory]? = nil, statuses: [SubscriptionStatus]? = nil
    ) throws -> Answer {
        guard sync else { return try .ok(nil) }
        return try .ok(
            ProfilePresenter.profileData(
                tx, profile: profile, subscription: subscription, categories: categories, statuses: statuses))
    }

    /// `provider` is the row's stored provider text (`SubscriptionChannel.storedProvider(_:)`), as
    /// it always was: a stored hash must not change.
    static func hashId(_ profile: Profile, _ resourceId: Int64, _ provider: String, _ token: String) -> String {
        Digest.shortHash("\(profile.publicId)|\(resourceId)|\(provider)|\(token)")
    }
}

/// The server's clock in milliseconds since 1970.
public enum ServerClock {
    /// The time now, in milliseconds since 1970, rounded.
    @Sendable public static func milliseconds() -> Int64 { Int64((Date().timeIntervalSince1970 * 1000).rounded()) }
}
