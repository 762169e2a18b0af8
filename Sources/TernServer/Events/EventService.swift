import Foundation
import TernProtocol

/// `event/push` (deliveries and opens) and `event/post` (goals).
struct EventService: Sendable {
    let store: any Store
    let metrics: Metrics
    let clock: @Sendable () -> Int64

    init(
        store: any Store, metrics: Metrics = Metrics(),
        clock: @escaping @Sendable () -> Int64 = ServerClock.milliseconds
    ) {
        self.store = store
        self.metrics = metrics
        self.clock = clock
    }

    /// Counts a delivery or open only for a delivery that exists (`tern.message_id` is the message's
    /// id, a dot, the delivery's id), that was sent to the caller's resource or to the profile the
    /// caller's JWT names, and only once per delivery and type. The rest are ignored and counted in
    /// `tern_push_events_ignored_total` by reason, not refused: a device cannot mend them by retrying,
    /// refusing would lose the batch's good events with them, and a refusal would tell a caller which
    /// other tenants' delivery ids exist.
    func pushEvents(_ request: PushEventRequest, caller: Caller, idempotency: IdempotencyToken)
        async throws -> Answer
    {
        let now = clock()
        let metrics = metrics
        let directory = store.webhookDirectory
        return try await store.idempotentWrite(idempotency, now: now) { tx in
            let profile = try ProfileResolver(caller: caller, now: now).find(tx, provider: nil, token: nil)
            let callersProfile = caller.hasJWT ? profile?.id : nil
            for event in request.events {
                // A report of a delivery sent to the caller, counted in one statement.
                if try tx.insertPushEvent(
                    pushId: event.messageId, type: event.type, time: event.time, receivedAt: now,
                    sentTo: caller.resource.id, orTo: callersProfile)
                {
                    try WebhookOutcomes.enqueueReport(
                        tx, pushId: event.messageId, kind: event.type, time: event.time, directory: directory, now: now)
                    continue
                }
                // Not counted (rare): the delivery's recipient says why.
                guard let recipient = try tx.pushRecipient(pushId: event.messageId) else {
                    metrics.recordIgnoredPushEvent(reason: "unknown_delivery")
                    continue
                }
                let sentToCaller =
                    recipient.resourceId == caller.resource.id || callersProfile == recipient.profileId
                metrics.recordIgnoredPushEvent(reason: sentToCaller ? "repeat" : "other_recipient")
            }
            return try .ok(nil)
        }
    }

    /// Records goals against their pixels. With a JWT, a goal's profile fields and subscription are
    /// applied to the profile it names (created when a goal carries either).
    ///
    /// The goals' person: with a JWT, the profile it names (the request's `provider` and
    /// `subscription_id` are checked, then left aside). With the rToken alone, the profile holding
    /// the push subscription the request names (provider and token) in the caller's resource, as
    /// `push/update` finds it; that person's triggered messages start and stop with the goals, and
    /// the goals are stored and told to webhooks with that profile. The device is looked up only
    /// when the project has a triggered message or a webhook that wants `goal.reached` (both read
    /// from directories kept in memory, so knowing it costs nothing); otherwise nothing reads a goal's
    /// profile soon enough to be worth a lookup on every `event/post` (conversions go by
    /// `send_message_id`), and the goals are stored without one, as before. A token that names no
    /// subscription of the resource (the device has not subscribed yet, or it is another
    /// resource's) is no error: the goals are stored without a profile and start no wait.
    func goals(_ request: GoalEventRequest, caller: Caller, idempotency: IdempotencyToken) async throws
        -> Answer
    {
        try request.validate(hasJWT: caller.hasJWT)
        let now = clock()
        let directory = store.webhookDirectory
        let triggerDirectory = store.triggerDirectory
        return try await store.idempotentWrite(idempotency, now: now) { tx in
            let resolver = ProfileResolver(caller: caller, now: now)
            let triggers = try triggerDirectory.triggers(tx, projectId: caller.project.id, now: now)
            let told = try directory.wanted(tx, projectId: caller.project.id, now: now).contains(.goalReached)
            let device = try Self.deviceProfile(
                tx, request, resolver: resolver, needed: !caller.hasJWT && (told || !triggers.isEmpty))
            var events: [String] = []
            for (index, goal) in request.events.enumerated() {
                guard let pixel = try tx.pixel(projectId: caller.project.id, sid: goal.sid) else {
                    throw APIError.notFound(
                        "events[\(index)].sid \"\(goal.sid.prefix(64))\" is not a pixel of project "
                            + "\(caller.project.id): create the pixel first (tern pixels create)")
                }
                var profile = try caller.hasJWT ? resolver.find(tx, provider: nil, token: nil) : device
                if caller.hasJWT, goal.profileFields != nil || goal.subscription != nil {
                    let found = try profile ?? resolver.findOrCreate(tx, provider: nil, token: nil)
                    try resolver.applyProfileChanges(
                        tx, to: found, fields: goal.profileFields, skipTriggers: nil, triggers: triggerDirectory)
                    if let subscription = goal.subscription,
                        let resourceId = try GoalSubscriptionWriter(caller: caller, now: now)
                            .apply(tx, subscription, to: found, time: goal.time, index: index)
                    {
                        try TriggerWaits.noteSubscribed(
                            tx, directory: triggerDirectory, resourceId: resourceId, profile: found, now: now)
                    }
                    profile = found
                }
                try tx.insertGoal(
                    GoalRecord(
                        pixelId: pixel.id, profileId: profile?.id, resourceId: caller.resource.id,
                        clientId: goal.clientId, eventName: goal.eventName, sendMessageId: goal.sendMessageId,
                        payload: goal.payload, matching: goal.matching, matchingType: goal.matchingType, utm: goal.utm,
                        time: goal.time, receivedAt: now))
                if told { events.append(try GoalEvents.json(goal, profile: profile?.publicId)) }
                if !triggers.isEmpty, let profile {
                    try TriggerWaits.note(tx, goal: goal.eventName, profile: profile, triggers: triggers, now: now)
                }
            }
            if !events.isEmpty {
                try tx.enqueueWebhookEvents(projectId: caller.project.id, type: .goalReached, bodies: events, now: now)
            }
            return try .ok(nil)
        }
    }

    /// The profile of the device an rToken-only request names, when `needed`: the holder of its
    /// push subscription in the caller's resource and database (another resource's devices are
    /// never reached); nil when the request names none or none holds it.
    static func deviceProfile(
        _ tx: any StoreTransaction, _ request: GoalEventRequest, resolver: ProfileResolver, needed: Bool
    ) throws -> Profile? {
        guard needed, let name = request.provider, let token = request.subscriptionId,
            let provider = PushProvider(rawValue: name)
        else { return nil }
        return try resolver.find(tx, provider: provider, token: token)
    }
}
