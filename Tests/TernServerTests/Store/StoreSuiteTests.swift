import Foundation
import TernProtocol
import TernTestSupport
import Testing

@testable import TernServer

/// The behaviour every `Store` backend must have.
@Suite struct StoreSuiteTests {
    @Test(arguments: StoreFactory.all)
    func projectAudienceDefaultsToTernAndItsId(factory: StoreFactory) async throws {
        let fixture = try await StoreFixture(factory)
        defer { Task { await fixture.finish() } }
        #expect(fixture.project.audience == "tern:\(fixture.project.id)")
        let custom = try await fixture.store.write { try $0.createProject(name: "b", audience: "aud-b", now: 2) }
        let read = try await fixture.store.read { try $0.project(id: custom.id) }
        #expect(read == custom)
        #expect(read?.audience == "aud-b")
    }

    @Test(arguments: StoreFactory.all)
    func resourceIsFoundByItsRTokenOnly(factory: StoreFactory) async throws {
        let fixture = try await StoreFixture(factory)
        defer { Task { await fixture.finish() } }
        let found = try await fixture.store.read { try $0.resource(rToken: "rt_fixture") }
        #expect(found == fixture.resource)
        #expect(found?.channels == [.push])
        let missing = try await fixture.store.read { try $0.resource(rToken: "rt_other") }
        #expect(missing == nil)
    }

    @Test(arguments: StoreFactory.all)
    func secondResourceWithTheSameRTokenIsAConflict(factory: StoreFactory) async throws {
        let fixture = try await StoreFixture(factory)
        defer { Task { await fixture.finish() } }
        let (project, database) = (fixture.project, fixture.database)
        let error = await #expect(throws: StoreError.self) {
            try await fixture.store.write { tx in
                try tx.createResource(
                    projectId: project.id, dbId: database.id, name: "again", channels: [.push], rToken: "rt_fixture",
                    now: 2)
            }
        }
        #expect(error?.isConflict == true, "\(String(describing: error))")
    }

    @Test(arguments: StoreFactory.all)
    func categoriesAreUpsertedListedAndDeleted(factory: StoreFactory) async throws {
        let fixture = try await StoreFixture(factory)
        defer { Task { await fixture.finish() } }
        let resourceId = fixture.resource.id
        try await fixture.store.write { tx in
            try tx.upsertCategory(ResourceCategory(resourceId: resourceId, name: "news", title: "News", steady: false))
            try tx.upsertCategory(ResourceCategory(resourceId: resourceId, name: "alerts", title: "A", steady: true))
            try tx.upsertCategory(
                ResourceCategory(resourceId: resourceId, name: "news", title: "All news", steady: true))
        }
        let categories = try await fixture.store.read { try $0.categories(resourceId: resourceId) }
        #expect(categories.map(\.name) == ["alerts", "news"])
        #expect(
            categories.last == ResourceCategory(resourceId: resourceId, name: "news", title: "All news", steady: true))
        let deleted = try await fixture.store.write { try $0.deleteCategory(resourceId: resourceId, name: "news") }
        let deletedAgain = try await fixture.store.write { try $0.deleteCategory(resourceId: resourceId, name: "news") }
        #expect(deleted)
        #expect(!deletedAgain)
    }

    @Test(arguments: StoreFactory.all)
    func profileFieldsAreSetReadRemovedAndLookedUpWithinTheirDatabase(factory: StoreFactory) async throws {
        let fixture = try await StoreFixture(factory)
        defer { Task { await fixture.finish() } }
        let (project, database) = (fixture.project, fixture.database)
        let (first, other) = try await fixture.store.write { tx in
            let otherDatabase = try tx.createDatabase(projectId: project.id, name: "other", now: 1)
            let first = try tx.createProfile(dbId: database.id, publicId: "p1", now: 5)
            let other = try tx.createProfile(dbId: otherDatabase.id, publicId: "p2", now: 5)
            for profile in [first, other] {
                try tx.setProfileField(profileId: profile.id, name: "_email", value: "a@example.com")
            }
            try tx.setProfileField(profileId: first.id, name: "tags", value: ["x", 1, ["k": true]])
            try tx.setProfileField(profileId: first.id, name: "gone", value: 1)
            try tx.setProfileField(profileId: first.id, name: "gone", value: nil)
            return (first, other)
        }
        let fields = try await fixture.store.read { try $0.profileFields(profileId: first.id) }
        #expect(fields == ["_email": "a@example.com", "tags": ["x", 1, ["k": true]]])
        let found = try await fixture.store.read {
            try $0.profiles(dbId: database.id, field: "_email", value: "a@example.com")
        }
        #expect(found.map(\.publicId) == ["p1"])
        let byPublicId = try await fixture.store.read { try $0.profile(publicId: "p2") }
        #expect(byPublicId == other)
    }

    @Test(arguments: StoreFactory.all)
    func subscriptionIsUniquePerProfileResourceChannelProviderAndToken(factory: StoreFactory) async throws {
        let fixture = try await StoreFixture(factory)
        defer { Task { await fixture.finish() } }
        let (database, resource) = (fixture.database, fixture.resource)
        let profile = try await fixture.store.write { try $0.createProfile(dbId: database.id, publicId: "p", now: 1) }
        let new = SubscriptionValues(
            profileId: profile.id, resourceId: resource.id, channel: .push, provider: .apns, token: "tok",
            status: .subscribed, hashId: "abcd1234", clientTime: 10)
        _ = try await fixture.store.write { try $0.insertSubscription(new, now: 11) }
        let error = await #expect(throws: StoreError.self) {
            try await fixture.store.write { try $0.insertSubscription(new, now: 11) }
        }
        #expect(error?.isConflict == true, "\(String(describing: error))")
        var otherToken = new
        otherToken.token = "tok2"
        _ = try await fixture.store.write { [otherToken] in try $0.insertSubscription(otherToken, now: 11) }
    }

    @Test(arguments: StoreFactory.all)
    func subscriptionChangesRoundTripAndListsComeNewestFirst(factory: StoreFactory) async throws {
        let fixture = try await StoreFixture(factory)
        defer { Task { await fixture.finish() } }
        let (database, resource) = (fixture.database, fixture.resource)
        let (older, newer) = try await fixture.store.write { tx in
            let profile = try tx.createProfile(dbId: database.id, publicId: "p", now: 1)
            let older = try tx.insertSubscription(
                SubscriptionValues(
                    profileId: profile.id, resourceId: resource.id, channel: .push, provider: .apns,
                    token: "a", status: .subscribed, hashId: "h1", clientTime: 1), now: 100)
            let newer = try tx.insertSubscription(
                SubscriptionValues(
                    profileId: profile.id, resourceId: resource.id, channel: .telegramBot, provider: nil,
                    token: "{\"chat\":1}", status: .subscribed, hashId: "h2", ccData: ["chat": 1], clientTime: 1),
                now: 200)
            return (older, newer)
        }
        var changed = older
        changed.status = .suspended
        changed.fields = ["_os": "IOS", "n": 2.5, "ok": true, "none": nil]
        changed.cats = ["news": true, "sport": false]
        changed.token = "b"
        changed.clientTime = 50
        changed.updatedAt = 300
        try await fixture.store.write { [changed] in try $0.updateSubscription(changed) }
        let read = try await fixture.store.read { try $0.subscription(id: older.id) }
        #expect(read == changed)
        let list = try await fixture.store.read { try $0.subscriptions(profileId: older.profileId) }
        #expect(list.map(\.id) == [newer.id, older.id])
        #expect(list.first?.ccData == ["chat": 1])
        let byToken = try await fixture.store.read {
            try $0.subscriptions(resourceId: resource.id, channel: .push, provider: .apns, token: "b")
        }
        #expect(byToken.map(\.id) == [older.id])
        let inDatabase = try await fixture.store.read {
            try $0.subscriptions(dbId: database.id, provider: .apns, token: "b")
        }
        #expect(inDatabase.map(\.id) == [older.id])
        // The lean reads agree with the whole rows.
        let statuses = try await fixture.store.read { try $0.subscriptionStatuses(profileId: older.profileId) }
        #expect(statuses.sorted { $0.rawValue < $1.rawValue } == [.subscribed, .suspended])
    }

    @Test(arguments: StoreFactory.all)
    func writeThatThrowsLeavesNothingBehind(factory: StoreFactory) async throws {
        let fixture = try await StoreFixture(factory)
        defer { Task { await fixture.finish() } }
        let database = fixture.database
        await #expect(throws: TestFailure.self) {
            try await fixture.store.write { tx in
                _ = try tx.createProfile(dbId: database.id, publicId: "rolled-back", now: 1)
                throw TestFailure()
            }
        }
        let profile = try await fixture.store.read { try $0.profile(publicId: "rolled-back") }
        #expect(profile == nil)
    }

    @Test(arguments: StoreFactory.all)
    func storedAnswersAreKeptPerScopeAndKeyAndPruned(factory: StoreFactory) async throws {
        let fixture = try await StoreFixture(factory)
        defer { Task { await fixture.finish() } }
        let answer = StoredAnswer(fingerprint: "f1", status: 200, body: Data("{\"error\":0}".utf8))
        try await fixture.store.write { try $0.storeAnswer(scope: "1", key: "k", answer: answer, now: 10) }
        try await fixture.store.write { try $0.storeAnswer(scope: "2", key: "k", answer: answer, now: 20) }
        #expect(try await fixture.store.read { try $0.storedAnswer(scope: "1", key: "k") } == answer)
        #expect(try await fixture.store.read { try $0.storedAnswer(scope: "1", key: "other") } == nil)
        let error = await #expect(throws: StoreError.self) {
            try await fixture.store.write { try $0.storeAnswer(scope: "1", key: "k", answer: answer, now: 11) }
        }
        #expect(error?.isConflict == true, "\(String(describing: error))")
        #expect(try await fixture.store.write { try $0.deleteAnswers(before: 15) } == 1)
        #expect(try await fixture.store.read { try $0.storedAnswer(scope: "1", key: "k") } == nil)
        #expect(try await fixture.store.read { try $0.storedAnswer(scope: "2", key: "k") } == answer)
    }

    @Test(arguments: StoreFactory.all)
    func pushEventIsRecordedOncePerResourceMessageAndType(factory: StoreFactory) async throws {
        let fixture = try await StoreFixture(factory)
        defer { Task { await fixture.finish() } }
        let resourceId = fixture.resource.id
        let delivery = PushEventRecord(
            resourceId: resourceId, profileId: nil, messageId: "m1", type: .delivery, time: 5, receivedAt: 6)
        var open = delivery
        open.type = .open
        let results = try await fixture.store.write { [open] tx in
            [try tx.insertPushEvent(delivery), try tx.insertPushEvent(delivery), try tx.insertPushEvent(open)]
        }
        #expect(results == [true, false, true])
        let events = try await fixture.store.read { try $0.pushEvents(messageId: "m1") }
        #expect(events.map(\.type) == [.delivery, .open])
    }

    @Test(arguments: StoreFactory.all)
    func goalRoundTripsWithItsPixel(factory: StoreFactory) async throws {
        let fixture = try await StoreFixture(factory)
        defer { Task { await fixture.finish() } }
        let projectId = fixture.project.id
        let pixel = try await fixture.store.write {
            try $0.createPixel(projectId: projectId, sid: "s1", name: "p", now: 1)
        }
        let goal = GoalRecord(
            pixelId: pixel.id, profileId: nil, resourceId: nil, clientId: "c", eventName: "buy", sendMessageId: "smid",
            payload: ["sum": 10], matching: ["email": "a@b"], matchingType: "email", utm: UTM(campaign: "spring"),
            time: 7, receivedAt: 8)
        try await fixture.store.write { try $0.insertGoal(goal) }
        let stored = try await fixture.store.read { try $0.goals(pixelId: pixel.id, limit: 10) }
        var expected = goal
        expected.id = try #require(stored.first?.id)
        #expect(expected.id > 0, "the store numbered it")
        #expect(stored == [expected])
        #expect(try await fixture.store.read { try $0.pixel(projectId: projectId, sid: "s1") } == pixel)
        let error = await #expect(throws: StoreError.self) {
            try await fixture.store.write { try $0.createPixel(projectId: projectId, sid: "s1", name: "again", now: 2) }
        }
        #expect(error?.isConflict == true, "\(String(describing: error))")
    }

    @Test(arguments: StoreFactory.all)
    func jwtKeysAreFoundByKidAcrossProjects(factory: StoreFactory) async throws {
        let fixture = try await StoreFixture(factory)
        defer { Task { await fixture.finish() } }
        let projectId = fixture.project.id
        let (other, key) = try await fixture.store.write { tx in
            let other = try tx.createProject(name: "other", audience: nil, now: 1)
            let key = try tx.addJWTKey(projectId: projectId, kid: "k1", algorithm: "HS256", key: "secret", now: 1)
            _ = try tx.addJWTKey(projectId: other.id, kid: "k2", algorithm: "ES256", key: "pem", now: 1)
            return (other, key)
        }
        #expect(try await fixture.store.read { try $0.jwtKeys(kid: "k1") } == [key])
        #expect(try await fixture.store.read { try $0.jwtKeys(projectId: other.id) }.map(\.kid) == ["k2"])
        #expect(try await fixture.store.write { try $0.deleteJWTKey(projectId: projectId, kid: "k1") })
        #expect(try await fixture.store.read { try $0.jwtKeys(kid: "k1") }.isEmpty)
    }

    @Test(arguments: StoreFactory.all)
    func adminKeysAreCheckedByDigest(factory: StoreFactory) async throws {
        let fixture = try await StoreFixture(factory)
        defer { Task { await fixture.finish() } }
        try await fixture.store.write { try $0.addAdminKey(digest: "d1", name: "bootstrap", now: 1) }
        #expect(try await fixture.store.read { try $0.hasAdminKey(digest: "d1") })
        #expect(try await !fixture.store.read { try $0.hasAdminKey(digest: "d2") })
        #expect(try await fixture.store.read { try $0.adminKeyCount() } == 1)
    }

    @Test(arguments: StoreFactory.all)
    func closedStoreRefusesWork(factory: StoreFactory) async throws {
        let fixture = try await StoreFixture(factory)
        defer { fixture.directory.remove() }
        #expect(await fixture.store.isHealthy())
        await fixture.store.close()
        #expect(await !fixture.store.isHealthy())
        await #expect(throws: StoreError.closed) {
            try await fixture.store.read { try $0.projects() }
        }
    }
}

extension StoreError {
    var isConflict: Bool {
        if case .conflict = self { return true }
        return false
    }
}
