import Foundation
import Synchronization
import TernProtocol
import TernTestSupport
import Testing

@testable import TernServer

/// Who a push reaches, the same on every `Store` backend: candidates, token marks and push state,
/// tags, and push event counts.
@Suite struct StoreSuitePushTargetTests {
    /// A candidate's custom fields and categories are read only as asked (`CandidateDetail`), by
    /// every kind of candidate read; the rest of the subscription is the same either way.
    @Test(arguments: StoreFactory.all)
    func candidatesBringTheirFieldsAndCategoriesOnlyWhenAsked(factory: StoreFactory) async throws {
        let fixture = try await StoreFixture(factory)
        defer { Task { await fixture.finish() } }
        let (dbId, resourceId, projectId) = (fixture.database.id, fixture.resource.id, fixture.project.id)
        let written = try await fixture.store.write { tx in
            let profile = try tx.createProfile(dbId: dbId, publicId: "p-detail", now: 1)
            return try tx.insertSubscription(
                SubscriptionValues(
                    profileId: profile.id, resourceId: resourceId, channel: .push, provider: .apns, token: "t-detail",
                    status: .subscribed, hashId: "h", fields: ["_os": .string("IOS"), "_session_count": .int(3)],
                    cats: ["news": true, "promo": false], clientTime: 1), now: 2)
        }
        let scope = AudienceScope(projectId: projectId, resourceId: resourceId)
        for reading: CandidateDetail in [[], .fields, .cats, .all] {
            let reads = try await fixture.store.read { tx in
                [
                    try tx.pushCandidates(resourceId: resourceId, after: 0, limit: 10, reading: reading),
                    try tx.pushCandidates(profileId: written.profileId, reading: reading),
                    try tx.pushCandidates(projectId: projectId, provider: .apns, token: "t-detail", reading: reading),
                    try tx.pushCandidates(scope, filter: nil, now: 0, after: 0, limit: 10, reading: reading),
                ]
            }
            for read in reads {
                let subscription = try #require(read.first?.subscription)
                #expect(subscription.fields == (reading.contains(.fields) ? written.fields : [:]), "\(reading)")
                #expect(subscription.cats == (reading.contains(.cats) ? written.cats : [:]), "\(reading)")
                var rest = subscription
                (rest.fields, rest.cats) = (written.fields, written.cats)
                #expect(rest == written)
            }
        }
    }

    @Test(arguments: StoreFactory.all)
    func candidatesTokenMarksAndPushStateAgree(factory: StoreFactory) async throws {
        let fixture = try await StoreFixture(factory)
        defer { Task { await fixture.finish() } }
        let subscriptions = try await StoreSuiteDeliveryTests.subscriptions(fixture, count: 3)
        let (resourceId, projectId) = (fixture.resource.id, fixture.project.id)
        let page = try await fixture.store.read {
            try $0.pushCandidates(resourceId: resourceId, after: 0, limit: 2, reading: .all)
        }
        #expect(page.map(\.subscription) == Array(subscriptions.prefix(2)))
        let next = try await fixture.store.read {
            try $0.pushCandidates(resourceId: resourceId, after: page[1].subscription.id, limit: 2, reading: .all)
        }
        #expect(next.map(\.subscription.id) == [subscriptions[2].id])
        #expect(
            try await fixture.store.read { try $0.pushCandidates(profileId: subscriptions[0].profileId, reading: .all) }
                .count == 3)

        // Written after `since`: the device registered the token again, so it is not marked.
        #expect(
            try await fixture.store.write {
                try $0.markTokenInvalid(provider: .apns, token: "t1", reason: "Unregistered", since: 1, now: 50)
            } == false)
        #expect(
            try await fixture.store.write {
                try $0.markTokenInvalid(provider: .apns, token: "t1", reason: "Unregistered", since: 2, now: 50)
            })
        #expect(
            try await fixture.store.read { try $0.invalidTokenMark(provider: .apns, token: "t1") }?.reason
                == "Unregistered")
        let marked = try await fixture.store.read {
            try $0.pushCandidates(projectId: projectId, provider: .apns, token: "t1", reading: .all)
        }
        #expect(marked.map(\.invalidMarkedAt) == [2], "the mark holds up to the provider's moment")
        let state = try await fixture.store.read { try $0.pushState(subscriptionId: subscriptions[1].id) }
        #expect(state?.invalidMarkedAt == 2 && state?.invalidReason == "Unregistered" && state?.token == "t1")
        #expect(try await fixture.store.read { try $0.pushState(subscriptionId: 999_999) } == nil)
        // A claim's subscriptions are read together: each as alone, a missing one left out, a repeat once.
        let ids = subscriptions.map(\.id) + [999_999, subscriptions[0].id]
        let together = try await fixture.store.read { try $0.pushStates(subscriptionIds: ids) }
        #expect(Set(together.keys) == Set(subscriptions.map(\.id)))
        for subscription in subscriptions {
            let alone = try await fixture.store.read { try $0.pushState(subscriptionId: subscription.id) }
            #expect(together[subscription.id] == alone)
        }
    }

    /// A provider's answer that a token died at a moment marks it up to that moment: a registration
    /// of the token written after it stays valid though it is recorded after the mark (a request
    /// that began before the answer came), and a mark for an earlier moment that arrives later does
    /// not move it back. With the mark at the time of recording, that registration was taken for
    /// the dead token's and skipped by every fan-out until its next write.
    @Test(arguments: StoreFactory.all)
    func aTokenDiesAtTheProvidersMomentNotWhenItsAnswerIsRecorded(factory: StoreFactory) async throws {
        let fixture = try await StoreFixture(factory)
        defer { Task { await fixture.finish() } }
        let subscription = try #require(try await StoreSuiteDeliveryTests.subscriptions(fixture, count: 1).first)
        let store = fixture.store
        #expect(
            try await store.write {
                try $0.markTokenInvalid(provider: .apns, token: "t0", reason: "Unregistered", since: 10, now: 50)
            })
        #expect(try await store.read { try $0.invalidTokenMark(provider: .apns, token: "t0") }?.markedAt == 10)
        #expect(
            try await store.read {
                try $0.pushCandidates(resourceId: fixture.resource.id, after: 0, limit: 9, reading: .all)
            }.isEmpty)
        // An earlier moment, recorded later: the mark stays at 10.
        #expect(
            try await store.write {
                try $0.markTokenInvalid(provider: .apns, token: "t0", reason: "Unregistered", since: 5, now: 60)
            })
        #expect(try await store.read { try $0.invalidTokenMark(provider: .apns, token: "t0") }?.markedAt == 10)

        var registered = subscription
        registered.updatedAt = 30  // after the provider's moment, before the answer was recorded
        let update = registered
        try await store.write { try $0.updateSubscription(update) }
        let candidates = try await store.read {
            try $0.pushCandidates(resourceId: fixture.resource.id, after: 0, limit: 9, reading: .all)
        }
        #expect(candidates.map(\.subscription.id) == [subscription.id])
        #expect(candidates.first?.tokenIsInvalid == false)
        let state = try await store.read { try $0.pushState(subscriptionId: subscription.id) }
        #expect(state?.tokenIsInvalid == false)
    }

    /// A token marked invalid by another connection while a device's update of it waits to go
    /// with its transaction's next statement (PostgreSQL): the update is newer than the mark, so
    /// the subscription stays pushable, as it would with the two one after the other in either
    /// order. The update computes `pushable` in its own statement, after the mark. (When it read
    /// the row first without a lock, the mark went between and the update, having read
    /// `pushable` 1, left it 0.)
    @Test(.enabled(if: PostgresTestDatabase.url != nil))
    func aTokenMarkedWhileADevicesNewerUpdateWaitsToGoLeavesItPushable() async throws {
        let fixture = try await StoreFixture(.postgres)
        defer { Task { await fixture.finish() } }
        let subscription = try #require(try await StoreSuiteDeliveryTests.subscriptions(fixture, count: 1).first)
        var newer = subscription
        newer.updatedAt = 300
        newer.fields = ["plan": .string("pro")]
        let (store, update, marked) = (fixture.store, newer, Flag())
        _ = try await store.write { tx in
            try tx.updateSubscription(update)  // goes with the commit
            Task {
                _ = try await store.write {
                    try $0.markTokenInvalid(provider: .apns, token: "t0", reason: "Unregistered", since: nil, now: 200)
                }
                marked.set()
            }
            // The mark finishes first, or waits for this commit if a build locks the row here: a
            // moment, well within the lock timeout a batch's write waits
            // (`PostgresBatching.lockTimeout`, 200 ms).
            let deadline = Date().addingTimeInterval(0.15)
            while !marked.isSet, Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        }
        for _ in 0..<500 where !marked.isSet { try await Task.sleep(for: .milliseconds(10)) }
        #expect(marked.isSet)
        let candidates = try await store.read {
            try $0.pushCandidates(resourceId: fixture.resource.id, after: 0, limit: 10, reading: .all)
        }
        #expect(candidates.map(\.subscription.id) == [subscription.id], "the fan-out reads it as pushable")
        #expect(candidates.first?.subscription.updatedAt == 300)
    }

    /// A device's update writes its built-in columns and `pushable` whichever of them it changes,
    /// and the audience counts follow: on PostgreSQL an update that leaves them as they are names
    /// none of them (no trigger of theirs is set up), one that changes any names them all.
    @Test(arguments: StoreFactory.all)
    func aDevicesUpdateWritesItsBuiltInColumnsAndPushableWhicheverItChanges(factory: StoreFactory) async throws {
        let fixture = try await StoreFixture(factory)
        defer { Task { await fixture.finish() } }
        let stored = try #require(try await StoreSuiteDeliveryTests.subscriptions(fixture, count: 1).first)
        let (store, id, resourceId) = (fixture.store, stored.id, fixture.resource.id)
        func update(at time: Int64, _ fields: [String: JSONValue]) async throws -> [Int64] {
            var changed = stored
            changed.fields = fields
            changed.updatedAt = time
            let update = changed
            return try await store.write { tx in
                let read = try #require(try tx.subscription(id: id))
                try tx.updateSubscription(update, from: read)
                let row = try integerRows(
                    tx, "SELECT pushable, COALESCE(session_count, -1) FROM subscriptions WHERE id = ?", [id],
                    columns: 2)
                let counted = try integerRows(
                    tx, "SELECT COALESCE(SUM(n), 0) FROM audience_counts WHERE resource_id = ?", [resourceId])
                return (row.first ?? []) + (counted.first ?? [])
            }
        }
        let sessions = BuiltInField.sessionCount.key
        #expect(try await update(at: 100, [sessions: 1]) == [1, 1, 1], "a built-in column set")
        #expect(try await update(at: 110, [sessions: 1, "plan": "pro"]) == [1, 1, 1], "a custom field only")
        #expect(try await update(at: 120, [sessions: 2, "plan": "pro"]) == [1, 2, 1], "a built-in column moved")
        #expect(
            try await store.write {
                try $0.markTokenInvalid(provider: .apns, token: "t0", reason: "Unregistered", since: nil, now: 500)
            })
        #expect(
            try await update(at: 600, [sessions: 2, "plan": "pro"]) == [1, 2, 1], "newer than the mark: pushable again")
        #expect(
            try await update(at: 400, [sessions: 2, "plan": "team"]) == [0, 2, 0], "older than the mark: not pushable")
        #expect(try await store.read { try $0.subscription(id: id) }?.fields["plan"] == .string("team"))
    }

    @Test(arguments: StoreFactory.all)
    func tagsAreSetRemovedClearedAndFiltered(factory: StoreFactory) async throws {
        let fixture = try await StoreFixture(factory)
        defer { Task { await fixture.finish() } }
        let subscriptions = try await StoreSuiteDeliveryTests.subscriptions(fixture, count: 2)
        let (a, b, resourceId) = (subscriptions[0].id, subscriptions[1].id, fixture.resource.id)
        try await fixture.store.write { tx in
            try tx.setTags(subscriptionId: a, ["plan": "pro", "city": "Oslo"], now: 1)
            try tx.setTags(subscriptionId: b, ["plan": "free"], now: 1)
            try tx.setTags(subscriptionId: a, ["plan": "team"], now: 2)
        }
        #expect(try await fixture.store.read { try $0.tags(subscriptionId: a) } == ["plan": "team", "city": "Oslo"])
        #expect(
            try await fixture.store.read { try $0.subscriptionIds(resourceId: resourceId, tag: "plan", value: nil) }
                == [a, b])
        #expect(
            try await fixture.store.read { try $0.subscriptionIds(resourceId: resourceId, tag: "plan", value: "free") }
                == [b])
        try await fixture.store.write { try $0.removeTags(subscriptionId: a, keys: ["city", "unknown"]) }
        #expect(try await fixture.store.read { try $0.tags(subscriptionId: a) } == ["plan": "team"])
        try await fixture.store.write { try $0.clearTags(subscriptionId: a) }
        #expect(try await fixture.store.read { try $0.tags(subscriptionId: a) }.isEmpty)
    }

    /// A device's report in one statement: stored with the delivery's resource and profile when the
    /// delivery went to the caller's resource or to its JWT's profile; once per type; nothing for a
    /// delivery that does not exist, of another message, or sent to someone else.
    @Test(arguments: StoreFactory.all)
    func aReportOfADeliveryIsStoredOnceAndOnlyForItsRecipient(factory: StoreFactory) async throws {
        let fixture = try await StoreFixture(factory)
        defer { Task { await fixture.finish() } }
        let subscription = try #require(try await StoreSuiteDeliveryTests.subscriptions(fixture, count: 1).first)
        let new = StoreSuiteDeliveryTests.message(
            projectId: fixture.project.id, resourceId: fixture.resource.id, publicId: "m-r")
        let message = try await fixture.store.write { try $0.insertMessage(new) }
        try await fixture.store.write {
            _ = try $0.insertDeliveries(
                messageId: message.id, targets: StoreSuiteDeliveryTests.targets([subscription]), now: 10)
        }
        let deliveryId = try #require(
            try await fixture.store.read { try $0.deliveries(messageId: message.id, afterId: 0, limit: 1) }.first?.id)
        let pushId = "m-r.\(deliveryId)"
        let (resourceId, profileId) = (fixture.resource.id, subscription.profileId)
        func report(_ pushId: String, _ type: PushEventRequest.Kind, resource: Int64, profile: Int64?) async throws
            -> Bool
        {
            try await fixture.store.write {
                try $0.insertPushEvent(
                    pushId: pushId, type: type, time: 7, receivedAt: 8, sentTo: resource, orTo: profile)
            }
        }
        #expect(try await report(pushId, .delivery, resource: resourceId, profile: nil))
        #expect(try await !report(pushId, .delivery, resource: resourceId, profile: nil), "a repeat")
        #expect(try await !report(pushId, .open, resource: resourceId + 1, profile: nil), "another resource's caller")
        #expect(try await !report(pushId, .open, resource: resourceId + 1, profile: profileId + 1), "another profile")
        #expect(try await report(pushId, .open, resource: resourceId + 1, profile: profileId), "its JWT's profile")
        #expect(
            try await !report("m-other.\(deliveryId)", .open, resource: resourceId, profile: nil), "another message")
        #expect(try await !report("m-r.\(deliveryId + 1)", .open, resource: resourceId, profile: nil), "no delivery")
        #expect(try await !report("m-r", .open, resource: resourceId, profile: nil), "no delivery id")
        let stored = try await fixture.store.read { try $0.pushEvents(messageId: pushId) }
        #expect(
            stored.map {
                PushEventRecord(
                    resourceId: $0.resourceId, profileId: $0.profileId, messageId: $0.messageId, type: $0.type,
                    time: $0.time, receivedAt: $0.receivedAt)
            }
                == [.delivery, .open].map {
                    PushEventRecord(
                        resourceId: resourceId, profileId: profileId, messageId: pushId, type: $0, time: 7,
                        receivedAt: 8)
                })
    }

    @Test(arguments: StoreFactory.all)
    func pushEventCountsReadAMessagesPrefixOnly(factory: StoreFactory) async throws {
        let fixture = try await StoreFixture(factory)
        defer { Task { await fixture.finish() } }
        let resourceId = fixture.resource.id
        try await fixture.store.write { tx in
            for (id, type) in [("m1.1", "delivery"), ("m1.2", "delivery"), ("m1.2", "open"), ("m10.1", "open")] {
                let kind = try #require(PushEventRequest.Kind(rawValue: type))
                _ = try tx.insertPushEvent(
                    PushEventRecord(
                        id: 0, resourceId: resourceId, profileId: nil, messageId: id, type: kind, time: 1,
                        receivedAt: 1))
            }
        }
        let counts = try await fixture.store.read { try $0.pushEventCounts(messageIdPrefix: "m1.") }
        #expect(counts == [.delivery: 2, .open: 1])
    }
}

/// A flag set once on one thread and read on another.
private final class Flag: Sendable {
    private let value = Mutex(false)

    var isSet: Bool { value.withLock { $0 } }

    func set() { value.withLock { $0 = true } }
}
