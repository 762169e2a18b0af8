import Foundation
import TernProtocol

/// `event/push` (deliveries and opens) and `event/post` (goals).
public struct EventService: Sendable {
    let store: any Store
    let clock: @Sendable () -> Int64

    public init(store: any Store, clock: @escaping @Sendable () -> Int64 = ServerClock.milliseconds) {
        self.store = store
        self.clock = clock
    }

    /// Records each delivery or open once per resource, message and type; with a JWT, against the
    /// profile it names (if it exists).
    public func pushEvents(_ request: PushEventRequest, caller: Caller, idempotency: IdempotencyToken)
        async throws -> Answer
    {
        let now = clock()
        return try await store.idempotentWrite(idempotency, now: now) { tx in
            let profile = try ProfileResolver(caller: caller, now: now).find(tx, provider: nil, token: nil)
            for event in request.events {
                _ = try tx.insertPushEvent(
                    PushEventRecord(
                        resourceId: caller.resource.id, profileId: profile?.id, messageId: event.messageId,
                        type: event.type, time: event.time, receivedAt: now))
            }
            return try .ok(nil)
        }
    }

    /// Records goals against their pixels. With a JWT, a goal's profile fields and subscription are
    /// applied to the profile it names (created when a goal carries either).
    public func goals(_ request: GoalEventRequest, caller: Caller, idempotency: IdempotencyToken) async throws
        -> Answer
    {
        try request.validate(hasJWT: caller.hasJWT)
        let now = clock()
        return try await store.idempotentWrite(idempotency, now: now) { tx in
            let resolver = ProfileResolver(caller: caller, now: now)
            for (index, goal) in request.events.enumerated() {
                guard let pixel = try tx.pixel(projectId: caller.project.id, sid: goal.sid) else {
                    throw APIError.notFound(
                        "events[\(index)].sid \"\(goal.sid.prefix(64))\" is not a pixel of project "
                            + "\(caller.project.id): create the pixel first (tern pixels create)")
                }
                var profile = try resolver.find(tx, provider: nil, token: nil)
                if caller.hasJWT, goal.profileFields != nil || goal.subscription != nil {
                    let found = try profile ?? resolver.findOrCreate(tx, provider: nil, token: nil)
                    try resolver.applyProfileChanges(tx, to: found, fields: goal.profileFields, skipTriggers: nil)
                    if let subscription = goal.subscription {
                        try GoalSubscriptionWriter(caller: caller, now: now)
                            .apply(tx, subscription, to: found, time: goal.time, index: index)
                    }
                    profile = found
                }
                _ = try tx.insertGoal(
                    GoalRecord(
                        pixelId: pixel.id, profileId: profile?.id, resourceId: caller.resource.id,
                        clientId: goal.clientId, eventName: goal.eventName, sendMessageId: goal.sendMessageId,
                        payload: goal.payload, matching: goal.matching, matchingType: goal.matchingType, utm: goal.utm,
                        time: goal.time, receivedAt: now))
            }
            return try .ok(nil)
        }
    }
}
