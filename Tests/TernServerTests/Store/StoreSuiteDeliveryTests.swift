import Foundation
import TernProtocol
import TernTestSupport
import Testing

@testable import TernServer

/// The outbox and messages, the same on every `Store` backend.
@Suite struct StoreSuiteDeliveryTests {
    static func message(projectId: Int64, resourceId: Int64, publicId: String) -> StoredMessage {
        StoredMessage(
            id: 0, publicId: publicId, projectId: projectId, resourceId: resourceId, content: "{}", audience: "all",
            payloadPrefix: Data([0x7B, 0x00, 0xFF]), payloadSuffix: Data("}".utf8), pushType: "alert", priority: 10,
            expiration: nil, collapseId: "c", topic: nil, environment: "production", fanOutCursor: 0,
            fanOutDone: false, total: 0, createdAt: 5)
    }

    /// A fixture with `count` push subscriptions (tokens t0, t1, …) on its resource.
    static func subscriptions(_ fixture: StoreFixture, count: Int) async throws -> [Subscription] {
        let (dbId, resourceId) = (fixture.database.id, fixture.resource.id)
        return try await fixture.store.write { tx in
            let profile = try tx.createProfile(dbId: dbId, publicId: "p-\(count)", now: 1)
            return try (0..<count).map { index in
                try tx.insertSubscription(
                    SubscriptionValues(
                        profileId: profile.id, resourceId: resourceId, channel: .push, provider: .apns,
                        token: "t\(index)", status: .subscribed, hashId: "h\(index)", clientTime: 1), now: 2)
            }
        }
    }

    static func targets(_ subscriptions: [Subscription]) -> [DeliveryTarget] {
        subscriptions.map { DeliveryTarget(subscriptionId: $0.id, provider: $0.provider ?? .apns, token: $0.token) }
    }

    @Test(arguments: StoreFactory.all)
    func messageRoundTripsAndFanOutAdvances(factory: StoreFactory) async throws {
        let fixture = try await StoreFixture(factory)
        defer { Task { await fixture.finish() } }
        let new = Self.message(projectId: fixture.project.id, resourceId: fixture.resource.id, publicId: "m-a")
        let stored = try await fixture.store.write { try $0.insertMessage(new) }
        var expected = new
        expected.id = stored.id
        #expect(stored == expected)
        #expect(try await fixture.store.read { try $0.message(publicId: "m-a") } == expected)
        #expect(try await fixture.store.read { try $0.messagesFanningOut(limit: 10, now: Int64.max) } == [expected])
        try await fixture.store.write { try $0.advanceFanOut(messageId: stored.id, cursor: 42, done: true, added: 3) }
        let advanced = try await fixture.store.read { try $0.message(id: stored.id) }
        #expect(advanced?.fanOutCursor == 42 && advanced?.fanOutDone == true && advanced?.total == 3)
        #expect(try await fixture.store.read { try $0.messagesFanningOut(limit: 10, now: Int64.max) }.isEmpty)
    }

    @Test(arguments: StoreFactory.all)
    func deliveriesAreDedupedClaimedOnceAndReclaimedAfterTheLease(factory: StoreFactory) async throws {
        let fixture = try await StoreFixture(factory)
        defer { Task { await fixture.finish() } }
        let subscriptions = try await Self.subscriptions(fixture, count: 5)
        let new = Self.message(projectId: fixture.project.id, resourceId: fixture.resource.id, publicId: "m-b")
        let message = try await fixture.store.write { try $0.insertMessage(new) }
        let targets = Self.targets(subscriptions)
        #expect(
            try await fixture.store.write { try $0.insertDeliveries(messageId: message.id, targets: targets, now: 10) }
                == 5)
        #expect(
            try await fixture.store.write { try $0.insertDeliveries(messageId: message.id, targets: targets, now: 11) }
                == 0)
        #expect(try await fixture.store.read { try $0.nextDeliveryDue() } == 10)

        let first = try await fixture.store.write { try $0.claimDeliveries(limit: 3, now: 20, leaseUntil: 100) }
        #expect(first.count == 3 && first.allSatisfy { $0.attempt == 1 })
        let second = try await fixture.store.write { try $0.claimDeliveries(limit: 10, now: 21, leaseUntil: 100) }
        #expect(Set(second.map(\.id)).isDisjoint(with: first.map(\.id)) && second.count == 2)
        #expect(try await fixture.store.write { try $0.claimDeliveries(limit: 10, now: 22, leaseUntil: 100) }.isEmpty)

        let sent = DeliveryUpdate(
            id: first[0].id, messageId: first[0].messageId, attempt: 1, status: .sent, providerMessageId: "apns-1")
        #expect(try await fixture.store.write { try $0.updateDelivery(sent, now: 30) })
        let retry = DeliveryUpdate(
            id: first[1].id, messageId: first[1].messageId, attempt: 1, status: .queued, reason: "busy", dueAt: 40)
        #expect(try await fixture.store.write { try $0.updateDelivery(retry, now: 30) })
        let failed = DeliveryUpdate(
            id: second[0].id, messageId: second[0].messageId, attempt: 1, status: .failed, reason: "BadDeviceToken: x")
        #expect(try await fixture.store.write { try $0.updateDelivery(failed, now: 30) })

        // The lease ran out for what was not answered: it is claimed again, with the next attempt.
        let again = try await fixture.store.write { try $0.claimDeliveries(limit: 10, now: 101, leaseUntil: 200) }
        #expect(Set(again.map(\.id)) == Set([first[1].id, first[2].id, second[1].id]))
        #expect(again.first { $0.id == first[2].id }?.attempt == 2)
        // The stale attempt's answer changes nothing.
        let stale = DeliveryUpdate(id: first[2].id, messageId: first[2].messageId, attempt: 1, status: .sent)
        #expect(try await fixture.store.write { try $0.updateDelivery(stale, now: 102) } == false)
        // Nor does an answer that names another message than the delivery's.
        let misnamed = DeliveryUpdate(
            id: first[2].id, messageId: first[2].messageId + 1, attempt: 2, status: .failed)
        #expect(try await fixture.store.write { try $0.updateDelivery(misnamed, now: 102) } == false)
        for claimed in again {
            let update = DeliveryUpdate(
                id: claimed.id, messageId: claimed.messageId, attempt: claimed.attempt, status: .sent)
            #expect(try await fixture.store.write { try $0.updateDelivery(update, now: 103) })
        }
        let counts = try await fixture.store.read { try $0.deliveryCounts(messageId: message.id) }
        #expect(counts == [.sent: 4, .failed: 1])
        #expect(
            try await fixture.store.read { try $0.failureReasons(messageId: message.id) } == ["BadDeviceToken: x": 1])
        let rows = try await fixture.store.read { try $0.deliveries(messageId: message.id, afterId: 0, limit: 2) }
        #expect(rows.count == 2 && rows[0].id < rows[1].id && rows[0].providerMessageId == "apns-1")
        let rest = try await fixture.store.read {
            try $0.deliveries(messageId: message.id, afterId: rows[1].id, limit: 10)
        }
        #expect(rest.count == 3)
    }

    /// The fan-out's rows and a batch's outcomes go several to a statement (groups of 64, then
    /// halves): 150 rows cross every group size but 8; a device listed twice, in different groups,
    /// is written once; outcomes of every kind in one call are each written, or not, as alone.
    @Test(arguments: StoreFactory.all)
    func deliveriesAndOutcomesGoSeveralToAStatementAsTheyWouldOneByOne(factory: StoreFactory) async throws {
        #expect(RowGroups(Array(0..<150)).map(\.count) == [64, 64, 16, 4, 2])
        #expect(RowGroups(Array(0..<7)).map(\.count) == [4, 2, 1])
        #expect(RowGroups([Int]()).map(\.count) == [])
        let fixture = try await StoreFixture(factory)
        defer { Task { await fixture.finish() } }
        let subscriptions = try await Self.subscriptions(fixture, count: 149)
        let new = Self.message(projectId: fixture.project.id, resourceId: fixture.resource.id, publicId: "m-g")
        let message = try await fixture.store.write { try $0.insertMessage(new) }
        // The first device again at the end: its row is in the first group, the repeat in the last.
        let targets = Self.targets(subscriptions) + Self.targets([subscriptions[0]])
        #expect(
            try await fixture.store.write { try $0.insertDeliveries(messageId: message.id, targets: targets, now: 10) }
                == 149)
        let claimed = try await fixture.store.write { try $0.claimDeliveries(limit: 200, now: 20, leaseUntil: 100) }
        try #require(claimed.count == 149)

        // One of each kind, a stale attempt, and the rest sent, in one call.
        var updates = claimed.map {
            DeliveryUpdate(
                id: $0.id, messageId: $0.messageId, attempt: 1, status: .sent, providerMessageId: "p\($0.id)")
        }
        updates[3] = DeliveryUpdate(
            id: claimed[3].id, messageId: claimed[3].messageId, attempt: 1, status: .queued, reason: "busy", dueAt: 60)
        updates[70] = DeliveryUpdate(
            id: claimed[70].id, messageId: claimed[70].messageId, attempt: 1, status: .failed,
            reason: "BadDeviceToken: x")
        updates[140] = DeliveryUpdate(id: claimed[140].id, messageId: claimed[140].messageId, attempt: 2, status: .sent)
        let outcomes = updates
        let held = try await fixture.store.write { try $0.updateDeliveries(outcomes, now: 30) }
        #expect(held == Set(claimed.map(\.id)).subtracting([claimed[140].id]))

        let counts = try await fixture.store.read { try $0.deliveryCounts(messageId: message.id) }
        #expect(counts == [.sent: 146, .queued: 1, .failed: 1, .sending: 1])
        #expect(
            try await fixture.store.read { try $0.failureReasons(messageId: message.id) } == ["BadDeviceToken: x": 1])
        let rows = try await fixture.store.read { try $0.deliveries(messageId: message.id, afterId: 0, limit: 200) }
        #expect(rows.first { $0.id == claimed[0].id }?.providerMessageId == "p\(claimed[0].id)")
        // The retry made its message due again at its time, before the lease of the stale one ran out.
        #expect(try await fixture.store.read { try $0.nextDeliveryDue() } == 60)
        let retried = try await fixture.store.write { try $0.claimDeliveries(limit: 10, now: 61, leaseUntil: 200) }
        #expect(retried.map(\.id) == [claimed[3].id] && retried.first?.attempt == 2)
    }

    /// Deliveries written leased (a fan-out handing its chunk to the senders) are as a claim leaves
    /// them: `sending`, first attempt, counted there, skipped when the device already has the message,
    /// not claimable until the lease runs out and then claimed as a lapsed lease; the message waits
    /// in the turns from the lease's end, so it is not "another message due" before then.
    @Test(arguments: StoreFactory.all)
    func leasedDeliveriesAreWrittenAsAClaimLeavesThem(factory: StoreFactory) async throws {
        let fixture = try await StoreFixture(factory)
        defer { Task { await fixture.finish() } }
        let subscriptions = try await Self.subscriptions(fixture, count: 6)
        let (projectId, resourceId) = (fixture.project.id, fixture.resource.id)
        let (leasing, queuing) = try await fixture.store.write { tx in
            (
                try tx.insertMessage(Self.message(projectId: projectId, resourceId: resourceId, publicId: "m-l1")),
                try tx.insertMessage(Self.message(projectId: projectId, resourceId: resourceId, publicId: "m-l2"))
            )
        }
        let targets = Self.targets(subscriptions)
        // The first device is queued already: its leased repeat is skipped.
        _ = try await fixture.store.write {
            try $0.insertDeliveries(messageId: leasing.id, targets: [targets[0]], now: 10)
        }
        let leased = try await fixture.store.write {
            try $0.insertLeasedDeliveries(
                messageId: leasing.id, targets: Array(targets[0..<4]), now: 10, leaseUntil: 100)
        }
        #expect(leased.map(\.subscriptionId) == subscriptions[1..<4].map(\.id))
        #expect(leased.allSatisfy { $0.attempt == 1 && $0.messageId == leasing.id && $0.provider == .apns })
        #expect(leased.map(\.token) == targets[1..<4].map(\.token))
        let rows = try await fixture.store.read { try $0.deliveries(messageId: leasing.id, afterId: 0, limit: 10) }
        #expect(rows.map(\.status) == [.queued, .sending, .sending, .sending])
        #expect(rows.map(\.attempts) == [0, 1, 1, 1])
        #expect(
            try await fixture.store.read { try $0.deliveryCounts(messageId: leasing.id) } == [.queued: 1, .sending: 3])

        // Its queued row is due; once claimed, the message is next due when the leases end.
        #expect(try await fixture.store.read { try $0.anotherMessageDue(than: queuing.id, now: 20) })
        #expect(try await fixture.store.read { try !$0.anotherMessageDue(than: leasing.id, now: 20) })
        let first = try await fixture.store.write { try $0.claimDeliveries(limit: 10, now: 20, leaseUntil: 200) }
        #expect(first.map(\.subscriptionId) == [subscriptions[0].id])
        #expect(try await fixture.store.read { try !$0.anotherMessageDue(than: queuing.id, now: 20) })
        #expect(try await fixture.store.read { try $0.nextDeliveryDue() } == 100)

        // Recorded like claimed ones; the rest are claimed again only after their lease.
        let held = try await fixture.store.write {
            try $0.updateDeliveries(
                [DeliveryUpdate(id: leased[0].id, messageId: leased[0].messageId, attempt: 1, status: .sent)], now: 30)
        }
        #expect(held == [leased[0].id])
        #expect(try await fixture.store.write { try $0.claimDeliveries(limit: 10, now: 99, leaseUntil: 300) }.isEmpty)
        let lapsed = try await fixture.store.write { try $0.claimDeliveries(limit: 10, now: 101, leaseUntil: 300) }
        #expect(lapsed.map(\.id) == [leased[1].id, leased[2].id] && lapsed.allSatisfy { $0.attempt == 2 })
        #expect(try await fixture.store.read { try $0.anotherMessageDue(than: queuing.id, now: 300) })
        #expect(
            try await fixture.store.read { try $0.deliveryCounts(messageId: leasing.id) } == [.sending: 3, .sent: 1])
    }

    /// A chunk a fan-out hands straight to its senders is held by one lease, not by a queue entry
    /// each: its answers are written once (a repeat changes nothing), a retry puts its delivery in
    /// the queue, and once the lease lapses a claim queues what has no answer and takes it with the
    /// next attempt, after which the first attempt's late answer changes nothing.
    @Test(arguments: StoreFactory.all)
    func aLeasedChunksAnswersAreWrittenOnceAndItsRestIsClaimedAfterTheLease(factory: StoreFactory) async throws {
        let fixture = try await StoreFixture(factory)
        defer { Task { await fixture.finish() } }
        let subscriptions = try await Self.subscriptions(fixture, count: 5)
        let (projectId, resourceId) = (fixture.project.id, fixture.resource.id)
        let message = try await fixture.store.write {
            try $0.insertMessage(Self.message(projectId: projectId, resourceId: resourceId, publicId: "m-lease"))
        }
        let leased = try await fixture.store.write {
            try $0.insertLeasedDeliveries(
                messageId: message.id, targets: Self.targets(subscriptions), now: 10, leaseUntil: 100)
        }
        try #require(leased.count == 5)
        @Sendable func update(_ index: Int, _ status: DeliveryStatus, attempt: Int = 1, due: Int64? = nil)
            -> DeliveryUpdate
        {
            DeliveryUpdate(
                id: leased[index].id, messageId: message.id, attempt: attempt, status: status,
                reason: status == .sent ? nil : "r\(index)", dueAt: due)
        }
        // One sent, one retried for 50, one answered under another message's name.
        let stranger = DeliveryUpdate(
            id: leased[2].id, messageId: message.id + 1_000, attempt: 1, status: .sent)
        let first = try await fixture.store.write {
            try $0.updateDeliveries([update(0, .sent), update(1, .queued, due: 50), stranger], now: 20)
        }
        #expect(first == [leased[0].id, leased[1].id])
        #expect(try await fixture.store.write { try $0.updateDeliveries([update(0, .failed)], now: 21) }.isEmpty)
        let page = try await fixture.store.read { try $0.deliveries(messageId: message.id, afterId: 0, limit: 10) }
        #expect(page.map(\.status) == [.sent, .queued, .sending, .sending, .sending])
        #expect(page.map(\.attempts) == [1, 1, 1, 1, 1])
        #expect(page.map(\.reason) == [nil, "r1", nil, nil, nil])
        #expect(page.map(\.updatedAt) == [20, 20, 10, 10, 10])

        // The retry is due at 50; the lease's rest only after 100, each with its second attempt.
        let retried = try await fixture.store.write { try $0.claimDeliveries(limit: 10, now: 60, leaseUntil: 160) }
        #expect(retried.map(\.id) == [leased[1].id] && retried.map(\.attempt) == [2])
        let lapsed = try await fixture.store.write { try $0.claimDeliveries(limit: 10, now: 101, leaseUntil: 200) }
        #expect(lapsed.map(\.id) == [leased[2].id, leased[3].id, leased[4].id])
        #expect(lapsed.allSatisfy { $0.attempt == 2 } && lapsed.map(\.token) == leased[2...].map(\.token))
        // The first attempt's late answer changes nothing; the second's is written.
        #expect(try await fixture.store.write { try $0.updateDeliveries([update(3, .sent)], now: 110) }.isEmpty)
        #expect(
            try await fixture.store.write { try $0.updateDeliveries([update(3, .sent, attempt: 2)], now: 111) }
                == [leased[3].id])
        #expect(
            try await fixture.store.read { try $0.deliveryCounts(messageId: message.id) } == [.sending: 3, .sent: 2])
    }

    /// A device gets a message once, whichever of its subscriptions the audience names: two
    /// profiles' subscriptions of one token in one chunk, in a later chunk, queued or leased, and
    /// the same token under another provider is another device. SQLite tells them apart by a
    /// unique index on the deliveries' tokens, PostgreSQL by the subscriptions that hold the token.
    @Test(arguments: StoreFactory.all)
    func aDeviceGetsAMessageOnceWhicheverOfItsSubscriptionsTheAudienceNames(factory: StoreFactory) async throws {
        let fixture = try await StoreFixture(factory)
        defer { Task { await fixture.finish() } }
        let (dbId, resourceId, projectId) = (fixture.database.id, fixture.resource.id, fixture.project.id)
        // Profiles a and b share the device "shared"; b also has "own"; "shared" under FCM is
        // another device.
        let subscriptions = try await fixture.store.write { tx in
            let a = try tx.createProfile(dbId: dbId, publicId: "p-a", now: 1)
            let b = try tx.createProfile(dbId: dbId, publicId: "p-b", now: 1)
            return try [
                (a, PushProvider.apns, "shared"), (b, .apns, "shared"), (b, .apns, "own"), (b, .firebase, "shared"),
            ]
            .enumerated().map { index, holder in
                try tx.insertSubscription(
                    SubscriptionValues(
                        profileId: holder.0.id, resourceId: resourceId, channel: .push, provider: holder.1,
                        token: holder.2, status: .subscribed, hashId: "h\(index)", clientTime: 1), now: 2)
            }
        }
        let targets = Self.targets(subscriptions)
        let (queued, leased) = try await fixture.store.write { tx in
            (
                try tx.insertMessage(Self.message(projectId: projectId, resourceId: resourceId, publicId: "m-d1")),
                try tx.insertMessage(Self.message(projectId: projectId, resourceId: resourceId, publicId: "m-d2"))
            )
        }
        // One chunk names both of the shared device's subscriptions: the first is written.
        #expect(
            try await fixture.store.write {
                try $0.insertDeliveries(messageId: queued.id, targets: [targets[0], targets[1], targets[2]], now: 10)
            } == 2)
        // A later chunk names the other one, and the other provider's device.
        #expect(
            try await fixture.store.write {
                try $0.insertDeliveries(messageId: queued.id, targets: [targets[1], targets[3]], now: 11)
            } == 1)
        let rows = try await fixture.store.read { try $0.deliveries(messageId: queued.id, afterId: 0, limit: 10) }
        #expect(rows.map(\.subscriptionId) == [subscriptions[0].id, subscriptions[2].id, subscriptions[3].id])

        // Leased, the second subscription first: the first one's later chunk is skipped, and the
        // device that had the other message is not held back by it.
        let first = try await fixture.store.write {
            try $0.insertLeasedDeliveries(
                messageId: leased.id, targets: [targets[1], targets[1]], now: 20, leaseUntil: 100)
        }
        #expect(first.map(\.subscriptionId) == [subscriptions[1].id])
        let second = try await fixture.store.write {
            try $0.insertLeasedDeliveries(
                messageId: leased.id, targets: [targets[0], targets[2], targets[3]], now: 21, leaseUntil: 100)
        }
        #expect(second.map(\.subscriptionId) == [subscriptions[2].id, subscriptions[3].id])
        #expect(
            try await fixture.store.read { try $0.deliveryCounts(messageId: leased.id) } == [.sending: 3])
    }

    /// A leased chunk's first attempts sent without an id of the provider's own are kept as runs of
    /// adjacent ids in one lease (`delivery_sent_runs`), not a row each: a failure, a retry or a
    /// provider's id splits a run, and so does a lease's end. The page shows each as sent, first
    /// attempt, at its time; a repeated answer of any kind changes nothing; and the recovery of a
    /// lapsed lease queues only what has no outcome.
    @Test(arguments: StoreFactory.all)
    func sentFirstAttemptsAreKeptAsRunsAndReadAsOneOutcomeEach(factory: StoreFactory) async throws {
        let fixture = try await StoreFixture(factory)
        defer { Task { await fixture.finish() } }
        let subscriptions = try await Self.subscriptions(fixture, count: 9)
        let (projectId, resourceId) = (fixture.project.id, fixture.resource.id)
        let message = try await fixture.store.write {
            try $0.insertMessage(Self.message(projectId: projectId, resourceId: resourceId, publicId: "m-runs"))
        }
        let targets = Self.targets(subscriptions)
        // Two chunks, two leases: ids 0…4 and 5…8 of the message, adjacent across the leases' edge.
        let leased = try await fixture.store.write { tx in
            try tx.insertLeasedDeliveries(
                messageId: message.id, targets: Array(targets[0..<5]), now: 10, leaseUntil: 100)
                + tx.insertLeasedDeliveries(
                    messageId: message.id, targets: Array(targets[5...]), now: 11, leaseUntil: 100)
        }
        try #require(leased.map(\.id) == Array(leased[0].id...(leased[0].id + 8)))
        @Sendable func update(_ index: Int, _ status: DeliveryStatus, id provider: String? = nil) -> DeliveryUpdate {
            DeliveryUpdate(
                id: leased[index].id, messageId: message.id, attempt: 1, status: status,
                reason: status == .sent ? nil : "r\(index)", providerMessageId: provider,
                dueAt: status == .queued ? 500 : nil)
        }
        // Answered out of order: 0 1 | 2 failed | 3 4 | lease's edge | 5 | 6 with the provider's id |
        // 7 retried | 8 unanswered.
        let answers = [
            update(4, .sent), update(1, .sent), update(2, .failed), update(5, .sent), update(0, .sent),
            update(6, .sent, id: "p6"), update(3, .sent), update(7, .queued),
        ]
        let held = try await fixture.store.write { try $0.updateDeliveries(answers, now: 20) }
        #expect(held == Set(leased[0...7].map(\.id)))
        let first = leased[0].id
        let runs = try await fixture.store.read { tx in
            try integerRows(
                tx, "SELECT first_id, last_id FROM delivery_sent_runs WHERE message_id = ? ORDER BY last_id",
                [message.id],
                columns: 2)
        }
        #expect(runs == [[first, first + 1], [first + 3, first + 4], [first + 5, first + 5]])
        let appended = try await fixture.store.read { tx in
            try integerRows(
                tx, "SELECT delivery_id FROM delivery_outcomes WHERE message_id = ? ORDER BY delivery_id", [message.id])
        }
        #expect(appended == [[first + 2], [first + 6], [first + 7]])

        // Every repeat, of the same outcome or another, changes nothing.
        let repeats = [update(0, .failed), update(4, .sent), update(5, .sent, id: "p5"), update(6, .sent)]
        #expect(try await fixture.store.write { try $0.updateDeliveries(repeats, now: 30) }.isEmpty)
        #expect(try await fixture.store.write { try $0.updateDeliveries([update(1, .sent)], now: 31) }.isEmpty)
        let page = try await fixture.store.read { try $0.deliveries(messageId: message.id, afterId: 0, limit: 20) }
        #expect(page.map(\.status) == [.sent, .sent, .failed, .sent, .sent, .sent, .sent, .queued, .sending])
        #expect(page.map(\.attempts) == [1, 1, 1, 1, 1, 1, 1, 1, 1])
        #expect(page.map(\.updatedAt) == [20, 20, 20, 20, 20, 20, 20, 20, 11])
        #expect(page.map(\.providerMessageId) == [nil, nil, nil, nil, nil, nil, "p6", nil, nil])
        #expect(page.map(\.reason) == [nil, nil, "r2", nil, nil, nil, nil, "r7", nil])
        #expect(
            try await fixture.store.read { try $0.deliveryCounts(messageId: message.id) }
                == [.sent: 6, .failed: 1, .queued: 1, .sending: 1])

        // The leases lapse: only the unanswered delivery is claimed again, with the retry.
        let again = try await fixture.store.write { try $0.claimDeliveries(limit: 20, now: 600, leaseUntil: 700) }
        #expect(Set(again.map(\.id)) == [leased[7].id, leased[8].id] && again.allSatisfy { $0.attempt == 2 })
    }

    /// A message's counts are kept in one row (`message_counts`) that every write moves: after each
    /// step they are what the delivery rows themselves say, for two messages at once, through new
    /// rows and skipped repeats, claims from the queue and of lapsed leases, outcomes of every kind,
    /// a retry and a stale answer.
    @Test(arguments: StoreFactory.all)
    func theCountsMoveWithEveryWriteAsTheRowsDo(factory: StoreFactory) async throws {
        let fixture = try await StoreFixture(factory)
        defer { Task { await fixture.finish() } }
        let subscriptions = try await Self.subscriptions(fixture, count: 40)
        let (projectId, resourceId) = (fixture.project.id, fixture.resource.id)
        let messages = try await fixture.store.write { tx in
            [
                try tx.insertMessage(Self.message(projectId: projectId, resourceId: resourceId, publicId: "m-c1")),
                try tx.insertMessage(Self.message(projectId: projectId, resourceId: resourceId, publicId: "m-c2")),
            ]
        }
        let store = fixture.store
        @Sendable func expectCountsAreTheRows(_ step: String) async throws {
            for message in messages {
                let rows = try await store.read { try $0.deliveries(messageId: message.id, afterId: 0, limit: 100) }
                let tally = Dictionary(grouping: rows, by: \.status).mapValues { Int64($0.count) }
                let counts = try await store.read { try $0.deliveryCounts(messageId: message.id) }
                #expect(counts == tally, "\(message.publicId) after \(step)")
            }
        }
        try await expectCountsAreTheRows("nothing")
        let targets = Self.targets(subscriptions)
        try await store.write { tx in
            _ = try tx.insertDeliveries(messageId: messages[0].id, targets: Array(targets[0..<30]), now: 10)
            _ = try tx.insertDeliveries(messageId: messages[0].id, targets: Array(targets[20..<35]), now: 10)
            _ = try tx.insertDeliveries(messageId: messages[1].id, targets: Array(targets[30..<40]), now: 10)
        }
        try await expectCountsAreTheRows("the inserts")
        let first = try await store.write { try $0.claimDeliveries(limit: 24, now: 20, leaseUntil: 100) }
        try #require(first.count == 24)
        try await expectCountsAreTheRows("the first claim")

        var outcomes: [DeliveryUpdate] = []
        for (index, claimed) in first.enumerated() {
            switch index % 6 {
            case 0:
                outcomes.append(DeliveryUpdate(id: claimed.id, messageId: claimed.messageId, attempt: 1, status: .sent))
            case 1:
                outcomes.append(
                    DeliveryUpdate(
                        id: claimed.id, messageId: claimed.messageId, attempt: 1, status: .failed, reason: "Gone"))
            case 2:
                outcomes.append(
                    DeliveryUpdate(
                        id: claimed.id, messageId: claimed.messageId, attempt: 1, status: .invalidToken, reason: "x"))
            case 3:
                outcomes.append(
                    DeliveryUpdate(id: claimed.id, messageId: claimed.messageId, attempt: 1, status: .queued, dueAt: 50)
                )
            case 4:  // stale: an attempt the row no longer has
                outcomes.append(DeliveryUpdate(id: claimed.id, messageId: claimed.messageId, attempt: 2, status: .sent))
            default: break  // no answer: its lease runs out
            }
        }
        let answered = outcomes
        _ = try await store.write { try $0.updateDeliveries(answered, now: 30) }
        try await expectCountsAreTheRows("the outcomes")

        // Past the leases: the retries, the lapsed leases and the rest of the queue, in two claims.
        let again = try await store.write { try $0.claimDeliveries(limit: 10, now: 150, leaseUntil: 300) }
        try await expectCountsAreTheRows("a claim of retries, lapsed leases and queued rows")
        let rest = try await store.write { try $0.claimDeliveries(limit: 100, now: 150, leaseUntil: 300) }
        try #require(again.count + rest.count == 45 - 12)
        try await expectCountsAreTheRows("the rest")
        let sentAll = (again + rest).map {
            DeliveryUpdate(id: $0.id, messageId: $0.messageId, attempt: $0.attempt, status: .sent)
        }
        _ = try await store.write { try $0.updateDeliveries(sentAll, now: 160) }
        try await expectCountsAreTheRows("the last outcomes")
        for message in messages {
            let counts = try await store.read { try $0.deliveryCounts(messageId: message.id) }
            #expect(counts[.queued] == nil && counts[.sending] == nil && counts.values.reduce(0, +) > 0)
        }
    }

    @Test(arguments: StoreFactory.all)
    func messagesTakeTurnsInAClaim(factory: StoreFactory) async throws {
        let fixture = try await StoreFixture(factory)
        defer { Task { await fixture.finish() } }
        let subscriptions = try await Self.subscriptions(fixture, count: 20)
        let (projectId, resourceId) = (fixture.project.id, fixture.resource.id)
        let big = try await fixture.store.write { tx in
            let message = try tx.insertMessage(
                Self.message(projectId: projectId, resourceId: resourceId, publicId: "big"))
            _ = try tx.insertDeliveries(messageId: message.id, targets: Self.targets(subscriptions), now: 1)
            return message
        }
        _ = try await fixture.store.write { try $0.claimDeliveries(limit: 4, now: 2, leaseUntil: 1000) }
        let small = try await fixture.store.write { tx in
            let message = try tx.insertMessage(
                Self.message(projectId: projectId, resourceId: resourceId, publicId: "small"))
            _ = try tx.insertDeliveries(
                messageId: message.id, targets: Self.targets(Array(subscriptions.prefix(2))), now: 3)
            return message
        }
        let claimed = try await fixture.store.write { try $0.claimDeliveries(limit: 6, now: 4, leaseUntil: 1000) }
        #expect(claimed.filter { $0.messageId == small.id }.count == 2)
        #expect(claimed.filter { $0.messageId == big.id }.count == 4)
    }
}
