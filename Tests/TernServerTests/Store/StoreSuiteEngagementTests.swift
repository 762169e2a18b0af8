import Foundation
import TernProtocol
import TernTestSupport
import Testing

@testable import TernServer

/// Engagement conditions (`opened`, `not_opened`, `delivered`, `sent` of a message, `opened_any`
/// within days), on every backend: per person, counted, sampled and fanned out to exactly the
/// subscriptions they name, alone and beside other conditions; and their refusals.
@Suite struct StoreSuiteEngagementTests {
    static let day: Int64 = 86_400_000
    static let now: Int64 = 1_800_000_000_000
    static let message = "m_engaged01"

    /// The people and their devices, by name: alice (a1, a2), bob (b1, b2), and one device each
    /// for carol (c1), dave (d1), erin (e1) and frank (f1), each of these with its own (anonymous)
    /// profile.
    struct Seeded {
        var ids: [String: Int64]
        var projectId: Int64
        var resourceId: Int64

        func names(_ subscriptions: [Int64]) -> [String] {
            let byId = Dictionary(uniqueKeysWithValues: ids.map { ($0.value, $0.key) })
            return subscriptions.compactMap { byId[$0] }.sorted()
        }
    }

    /// The message went to a1 and b2 through the queue (each sent, with the provider's id: rows of
    /// `delivery_outcomes`) and to b1, c1, d1, f1 in a lease (b1, d1, f1 sent without one: runs of
    /// `delivery_sent_runs` on both sides of c1, which failed). alice opened it on a1, dave on d1;
    /// bob's b2 reported it delivered; a report of an erased profile opened it too. Another message
    /// was opened by erin two days ago and by frank forty days ago.
    static func seed(_ fixture: StoreFixture) async throws -> Seeded {
        let (database, resource, project) = (fixture.database, fixture.resource, fixture.project)
        let ids = try await fixture.store.write { tx in
            var ids: [String: Int64] = [:]
            var profiles: [String: Int64] = [:]
            let devices = ["a1", "a2", "b1", "b2", "c1", "d1", "e1", "f1"]
            for device in devices {
                let person = String(device.prefix(1))
                let profileId = try profiles[person] ?? tx.createProfile(dbId: database.id, publicId: person, now: 1).id
                profiles[person] = profileId
                let tags = ["a1": "travel", "b1": "travel", "b2": "food", "f1": "travel", "d1": "food"]
                let subscription = try tx.insertSubscription(
                    SubscriptionValues(
                        profileId: profileId, resourceId: resource.id, channel: .push, provider: .apns,
                        token: "tok-\(device)", status: .subscribed, hashId: "h-\(device)",
                        fields: [BuiltInField.sessionCount.key: .int(device == "e1" ? 5 : 1)], clientTime: 1),
                    now: 10)
                if let tag = tags[device] {
                    try tx.setTags(subscriptionId: subscription.id, ["interest": tag], now: 10)
                }
                ids[device] = subscription.id
            }
            return ids
        }
        @Sendable func target(_ device: String) -> DeliveryTarget {
            DeliveryTarget(subscriptionId: ids[device] ?? 0, provider: .apns, token: "tok-\(device)")
        }
        let stored = try await fixture.store.write {
            try $0.insertMessage(
                StoreSuiteDeliveryTests.message(projectId: project.id, resourceId: resource.id, publicId: Self.message))
        }
        try await fixture.store.write { tx in
            _ = try tx.insertDeliveries(messageId: stored.id, targets: [target("a1"), target("b2")], now: 10)
            for claimed in try tx.claimDeliveries(limit: 10, now: 20, leaseUntil: 100) {
                _ = try tx.updateDelivery(
                    DeliveryUpdate(
                        id: claimed.id, messageId: claimed.messageId, attempt: 1, status: .sent,
                        providerMessageId: "apns-\(claimed.id)"), now: 30)
            }
            let leased = try tx.insertLeasedDeliveries(
                messageId: stored.id, targets: ["b1", "c1", "d1", "f1"].map(target), now: 40, leaseUntil: 1000)
            let failed = ids["c1"]
            _ = try tx.updateDeliveries(
                leased.map {
                    $0.subscriptionId == failed
                        ? DeliveryUpdate(
                            id: $0.id, messageId: $0.messageId, attempt: 1, status: .failed, reason: "Unregistered")
                        : DeliveryUpdate(id: $0.id, messageId: $0.messageId, attempt: 1, status: .sent)
                }, now: 50)
        }
        let pages = try await fixture.store.read { try $0.deliveries(messageId: stored.id, afterId: 0, limit: 10) }
        let statuses = Dictionary(uniqueKeysWithValues: pages.map { ($0.subscriptionId, $0.status) })
        #expect(statuses[ids["c1"] ?? 0] == .failed && statuses[ids["d1"] ?? 0] == .sent)
        let deliveryOf = Dictionary(uniqueKeysWithValues: pages.map { ($0.subscriptionId, $0.id) })
        try await fixture.store.write { tx in
            for (device, type) in [("a1", PushEventRequest.Kind.open), ("d1", .open), ("b2", .delivery)] {
                let pushId = "\(Self.message).\(deliveryOf[ids[device] ?? 0] ?? 0)"
                #expect(
                    try tx.insertPushEvent(
                        pushId: pushId, type: type, time: Self.now - Self.day, receivedAt: Self.now,
                        sentTo: resource.id, orTo: nil))
            }
            // An open whose profile was erased: it counts for no one, and keeps `not_opened` working.
            _ = try tx.insertPushEvent(
                PushEventRecord(
                    resourceId: resource.id, profileId: nil, messageId: "\(Self.message).999999", type: .open,
                    time: Self.now, receivedAt: Self.now))
            for (device, ago) in [("e1", 2), ("f1", 40)] {
                let subscription = try #require(try tx.subscription(id: ids[device] ?? 0))
                _ = try tx.insertPushEvent(
                    PushEventRecord(
                        resourceId: resource.id, profileId: subscription.profileId, messageId: "m_other01.\(ago)",
                        type: .open, time: Self.now - Int64(ago) * Self.day, receivedAt: Self.now))
            }
        }
        return Seeded(ids: ids, projectId: project.id, resourceId: resource.id)
    }

    static func filter(_ text: String) throws -> AudienceExpression {
        try AudienceExpression.parse(try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)))
    }

    static let expectations: [(String, [String])] = [
        (#"{"message": "m_engaged01", "op": "opened"}"#, ["a1", "a2", "d1"]),
        (#"{"message": "m_engaged01", "op": "not_opened"}"#, ["b1", "b2", "f1"]),
        (#"{"message": "m_engaged01", "op": "delivered"}"#, ["a1", "a2", "b1", "b2", "d1"]),
        (#"{"message": "m_engaged01", "op": "sent"}"#, ["a1", "a2", "b1", "b2", "d1", "f1"]),
        (#"{"engagement": "opened_any", "op": "within_days", "value": 30}"#, ["a1", "a2", "d1", "e1"]),
        (#"{"engagement": "opened_any", "op": "within_days", "value": 50}"#, ["a1", "a2", "d1", "e1", "f1"]),
        (
            #"{"and": [{"message": "m_engaged01", "op": "not_opened"}, {"field": "tags.interest", "op": "=", "value": "travel"}]}"#,
            ["b1", "f1"]
        ),
        (
            #"{"or": [{"message": "m_engaged01", "op": "opened"}, {"field": "session_count", "op": ">=", "value": 5}]}"#,
            ["a1", "a2", "d1", "e1"]
        ),
        (
            #"{"and": [{"message": "m_engaged01", "op": "sent"}, {"or": [{"field": "tags.interest", "op": "=", "value": "food"}, {"message": "m_engaged01", "op": "opened"}]}]}"#,
            ["a1", "a2", "b2", "d1"]
        ),
        (
            #"{"and": [{"field": "tags.interest", "op": "exists"}, {"message": "m_unknown01", "op": "opened"}]}"#,
            []
        ),
    ]

    @Test(arguments: StoreFactory.all)
    func eachConditionIsCountedSampledAndFannedOutToItsPeople(factory: StoreFactory) async throws {
        let fixture = try await StoreFixture(factory)
        defer { Task { await fixture.finish() } }
        let seeded = try await Self.seed(fixture)
        for (text, expected) in Self.expectations {
            let filter = try Self.filter(text)
            #expect(!FilterSQL.countsByGroup(filter), "an engagement condition is counted from the rows")
            #expect(FilterSQL.tagRows(filter, dialect: .sqlite, now: Self.now) == nil, "nor from the tags' rows")
            for scope in [
                AudienceScope(projectId: seeded.projectId, resourceId: seeded.resourceId),
                AudienceScope(projectId: seeded.projectId, resourceId: nil),
            ] {
                let (count, sample) = try await fixture.store.read { tx in
                    (
                        try tx.audienceCount(scope, filter: filter, now: Self.now),
                        try tx.audienceSample(scope, filter: filter, now: Self.now, limit: 100).map(\.id)
                    )
                }
                #expect(count == Int64(expected.count), "\(text)")
                #expect(seeded.names(sample) == expected, "sample: \(text)")
                // The fan-out's chunks, two at a time, page by id.
                var cursor: Int64 = 0
                var reached: [Int64] = []
                while true {
                    let chunk = try await fixture.store.read { [cursor] in
                        try $0.pushCandidates(
                            scope, filter: filter, now: Self.now, after: cursor, limit: 2, reading: []
                        )
                        .map(\.subscription.id)
                    }
                    reached += chunk
                    guard chunk.count == 2, let last = chunk.last else { break }
                    cursor = last
                }
                #expect(reached == reached.sorted(), "chunks in id order: \(text)")
                #expect(seeded.names(reached) == expected, "fan-out: \(text)")
                #expect(Int64(reached.count) == count, "the count is what a send reaches: \(text)")
            }
        }
    }

    /// A send keeps its lists when it begins: its chunks reach what the conditions read then (a
    /// person who opens the message afterwards is still in a `not_opened` send), and nothing once
    /// the lists are forgotten.
    @Test(arguments: StoreFactory.all)
    func aSendReadsItsListsOnceWhenItBegins(factory: StoreFactory) async throws {
        let fixture = try await StoreFixture(factory)
        defer { Task { await fixture.finish() } }
        let seeded = try await Self.seed(fixture)
        let scope = AudienceScope(projectId: seeded.projectId, resourceId: seeded.resourceId)
        let sending: Int64 = 424_242
        func fanOut(_ filter: AudienceExpression) async throws -> [String] {
            var cursor: Int64 = 0
            var reached: [Int64] = []
            while true {
                let chunk = try await fixture.store.read { [cursor] in
                    try $0.pushCandidates(scope, filter: filter, now: Self.now, after: cursor, limit: 2, reading: [])
                        .map(\.subscription.id)
                }
                reached += chunk
                guard chunk.count == 2, let last = chunk.last else { break }
                cursor = last
            }
            return seeded.names(reached)
        }
        for (text, expected) in Self.expectations {
            let filter = try Self.filter(text)
            let kept = EngagementLists(filter, sending: sending, now: Self.now)
            #expect(kept.expression != filter, "the send reads kept lists: \(text)")
            try await fixture.store.write {
                try $0.keepAudienceLists(messageId: sending, filter: filter, now: Self.now)
            }
            #expect(try await fanOut(kept.expression) == expected, "kept: \(text)")
            try await fixture.store.write { try $0.forgetAudienceLists(messageId: sending) }
            // Forgotten, the lists hold no one (only another arm of an `or` still admits).
            let left = try await fanOut(kept.expression)
            #expect(left.isEmpty || (left.count < expected.count && text.contains("or")), "forgotten: \(text)")
        }
        // bob opens the message once the reminder to those who did not began: it still reaches him.
        let notOpened = try Self.filter(#"{"message": "m_engaged01", "op": "not_opened"}"#)
        try await fixture.store.write { try $0.keepAudienceLists(messageId: sending, filter: notOpened, now: Self.now) }
        try await fixture.store.write { tx in
            let bob = try #require(try tx.subscription(id: seeded.ids["b1"] ?? 0))
            _ = try tx.insertPushEvent(
                PushEventRecord(
                    resourceId: seeded.resourceId, profileId: bob.profileId, messageId: "\(Self.message).888888",
                    type: .open, time: Self.now, receivedAt: Self.now))
        }
        #expect(try await fanOut(notOpened) == ["f1"], "read now, bob has opened it")
        let kept = EngagementLists(notOpened, sending: sending, now: Self.now).expression
        #expect(try await fanOut(kept) == ["b1", "b2", "f1"], "read when the send began, he had not")
    }

    @Test(arguments: StoreFactory.all)
    func aFilterNamingAMessageUnknownOfAnotherProjectOrPastRetentionIsRefused(factory: StoreFactory) async throws {
        let fixture = try await StoreFixture(factory)
        defer { Task { await fixture.finish() } }
        let seeded = try await Self.seed(fixture)
        let segments = SegmentService(store: fixture.store, clock: { Self.now })
        func refusal(_ json: String, projectId: Int64? = nil) async -> String? {
            do {
                let filter = try JSONDecoder().decode(JSONValue.self, from: Data(json.utf8))
                _ = try await segments.create(
                    SegmentSpec(projectId: projectId ?? seeded.projectId, name: "s\(json.count)", filter: filter))
                return nil
            } catch let error as APIError {
                return error.reason
            } catch {
                return "\(error)"
            }
        }
        let unknown = await refusal(
            #"{"and": [{"field": "session_count", "op": ">", "value": 0}, {"message": "m_nope", "op": "opened"}]}"#)
        #expect(unknown?.hasPrefix("filter.and[1].message: no message has the id m_nope") == true, "\(unknown ?? "")")
        let other = try await fixture.store.write { tx in
            let project = try tx.createProject(name: "other", audience: nil, now: 1)
            _ = try tx.insertMessage(
                StoreSuiteDeliveryTests.message(
                    projectId: project.id, resourceId: seeded.resourceId, publicId: "m_theirs"))
            return project.id
        }
        let theirs = await refusal(#"{"message": "m_theirs", "op": "sent"}"#)
        #expect(
            theirs?.contains("filter.message: message m_theirs is not a message of project") == true, "\(theirs ?? "")")
        #expect(await refusal(#"{"message": "m_theirs", "op": "sent"}"#, projectId: other) == nil, "its own project's")
        #expect(await refusal(#"{"message": "m_engaged01", "op": "opened"}"#) == nil)
        let badOp = await refusal(#"{"message": "m_engaged01", "op": "clicked"}"#)
        #expect(badOp?.hasPrefix("filter.op: unknown engagement \"clicked\"") == true, "\(badOp ?? "")")
        for days in ["0", "-3", "\"30\""] {
            let refused = await refusal(#"{"engagement": "opened_any", "op": "within_days", "value": \#(days)}"#)
            #expect(refused?.hasPrefix("filter.value: within_days takes a number of days above 0") == true, "\(days)")
        }
        let stray = await refusal(#"{"message": "m_engaged01", "op": "opened", "value": 3}"#)
        #expect(stray?.hasPrefix("filter.value: is not a key of a message condition") == true, "\(stray ?? "")")
        // Retention removes the message's deliveries and reports: a filter on it is refused, saying so.
        let stored = try #require(try await fixture.store.read { try $0.message(publicId: Self.message) })
        try await fixture.store.write { tx in
            while case .removed = try tx.removeHistory(messageId: stored.id, limit: 100, now: Self.now) {}
        }
        let removed = await refusal(
            #"{"or": [{"field": "language", "op": "exists"}, {"message": "m_engaged01", "op": "not_opened"}]}"#)
        #expect(
            removed?.hasPrefix(
                "filter.or[1].message: message m_engaged01 is past retention: its deliveries and reports were removed on 2027-01-15"
            ) == true, "\(removed ?? "")")
        #expect(removed?.hasSuffix("engagement with it can no longer be told") == true)
        let preview =
            await {
                do {
                    _ = try await segments.preview(
                        AudiencePreviewRequest(
                            projectId: seeded.projectId,
                            filter: try JSONDecoder().decode(
                                JSONValue.self, from: Data(#"{"message": "m_engaged01", "op": "opened"}"#.utf8))))
                    return nil
                } catch let error as APIError { return error.reason } catch { return "\(error)" }
            }() as String?
        #expect(preview?.contains("is past retention") == true, "a preview is refused too")
    }

    @Test func anInAppAudienceRefusesEngagementConditions() throws {
        let audience = InAppAudience(
            filter: .object([
                "and": .array([
                    .object(["field": "session_count", "op": ">=", "value": 1]),
                    .object(["message": "m_engaged01", "op": "opened"]),
                ])
            ]))
        let error = #expect(throws: APIError.self) { try InAppValidation.check(audience, "audience") }
        #expect(
            error?.reason.hasPrefix("audience.filter.and[1]: an in-app audience is matched on the device's") == true)
        let plain = InAppAudience(filter: .object(["field": "session_count", "op": ">=", "value": 1]))
        try InAppValidation.check(plain, "audience")
    }

    @Test func theTextFormReadsEngagementConditions() throws {
        func json(_ text: String) throws -> String {
            StoredJSON.encode(try FilterText.parse(text))
        }
        #expect(try json("opened m_abc") == #"{"message":"m_abc","op":"opened"}"#)
        #expect(try json("not opened m_abc") == #"{"message":"m_abc","op":"not_opened"}"#)
        #expect(try json("received m_abc") == #"{"message":"m_abc","op":"delivered"}"#)
        #expect(try json("delivered m_abc") == #"{"message":"m_abc","op":"delivered"}"#)
        #expect(try json("sent m_abc") == #"{"message":"m_abc","op":"sent"}"#)
        #expect(try json("opened_any within 30 days") == #"{"engagement":"opened_any","op":"within_days","value":30}"#)
        #expect(
            try json("not opened m_abc and (tags.interest = travel or session_count >= 3)")
                == #"{"and":[{"message":"m_abc","op":"not_opened"},{"or":[{"field":"tags.interest","op":"=","value":"travel"},{"field":"session_count","op":">=","value":3}]}]}"#
        )
        // Every one reads back as the filter it names.
        _ = try AudienceExpression.parse(try FilterText.parse("sent m_abc and not opened m_abc or opened_any within 7"))
        #expect(throws: APIError.self) { try FilterText.parse("opened") }
        #expect(throws: APIError.self) { try FilterText.parse("opened and x") }
        #expect(throws: APIError.self) { try FilterText.parse("opened_any 30") }
        #expect(throws: APIError.self) { try FilterText.parse("language not opened") }
    }
}
