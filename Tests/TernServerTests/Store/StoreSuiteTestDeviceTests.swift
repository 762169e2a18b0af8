import Foundation
import TernProtocol
import TernTestSupport
import Testing

@testable import TernServer

/// Each subscription's APNs environment and test-device flag, and a project's test devices, the
/// same on every `Store` backend.
@Suite struct StoreSuiteTestDeviceTests {
    @Test(arguments: StoreFactory.all)
    func aSubscriptionKeepsItsAPNsEnvironmentAndTestFlag(factory: StoreFactory) async throws {
        let fixture = try await StoreFixture(factory)
        defer { Task { await fixture.finish() } }
        let (dbId, resourceId) = (fixture.database.id, fixture.resource.id)
        let (sandbox, unsaid) = try await fixture.store.write { tx in
            let profile = try tx.createProfile(dbId: dbId, publicId: "p-env", now: 1)
            let sandbox = try tx.insertSubscription(
                SubscriptionValues(
                    profileId: profile.id, resourceId: resourceId, channel: .push, provider: .apns, token: "aa",
                    status: .subscribed, hashId: "h1", clientTime: 1, apnsEnvironment: .sandbox, isTest: true),
                now: 2)
            let unsaid = try tx.insertSubscription(
                SubscriptionValues(
                    profileId: profile.id, resourceId: resourceId, channel: .push, provider: .apns, token: "bb",
                    status: .subscribed, hashId: "h2", clientTime: 1), now: 2)
            return (sandbox, unsaid)
        }
        let read = try await fixture.store.read { tx in
            (try tx.subscription(id: sandbox.id), try tx.subscription(id: unsaid.id))
        }
        #expect(read.0?.apnsEnvironment == .sandbox && read.0?.isTest == true)
        #expect(read.1?.apnsEnvironment == nil && read.1?.isTest == false)
        #expect(
            try await fixture.store.read { try $0.pushState(subscriptionId: sandbox.id) }?.apnsEnvironment == .sandbox)

        var changed = try #require(read.1)
        changed.apnsEnvironment = .production
        changed.isTest = true
        let saved = changed
        try await fixture.store.write { try $0.updateSubscription(saved) }
        let after = try await fixture.store.read { try $0.subscription(id: unsaid.id) }
        #expect(after?.apnsEnvironment == .production && after?.isTest == true)
        let state = try await fixture.store.read { try $0.pushState(subscriptionId: unsaid.id) }
        #expect(state?.environment(messageEnvironment: "sandbox") == .production)
    }

    /// Marked subscriptions and test profiles' push subscriptions, each once, in the project (and the
    /// resource when named) only.
    @Test(arguments: StoreFactory.all)
    func testCandidatesAreMarkedSubscriptionsAndTestProfilesOfTheProject(factory: StoreFactory) async throws {
        let fixture = try await StoreFixture(factory)
        defer { Task { await fixture.finish() } }
        let (projectId, dbId, resourceId) = (fixture.project.id, fixture.database.id, fixture.resource.id)
        let ids = try await fixture.store.write { tx in
            let other = try tx.createResource(
                projectId: projectId, dbId: dbId, name: "second", channels: [.push], rToken: "rt_second", now: 1)
            let elsewhere = try tx.createProject(name: "other", audience: nil, now: 1)
            let elsewhereDb = try tx.createDatabase(projectId: elsewhere.id, name: "main", now: 1)
            let elsewhereResource = try tx.createResource(
                projectId: elsewhere.id, dbId: elsewhereDb.id, name: "push", channels: [.push], rToken: "rt_else",
                now: 1)
            let plain = try tx.createProfile(dbId: dbId, publicId: "p-plain", now: 1)
            var tester = try tx.createProfile(dbId: dbId, publicId: "p-tester", now: 1)
            tester.isTest = true
            try tx.updateProfile(tester)
            let stranger = try tx.createProfile(dbId: elsewhereDb.id, publicId: "p-stranger", now: 1)
            func add(_ profile: Profile, _ resource: Int64, _ token: String, test: Bool) throws -> Int64 {
                try tx.insertSubscription(
                    SubscriptionValues(
                        profileId: profile.id, resourceId: resource, channel: .push, provider: .apns,
                        token: token, status: .subscribed, hashId: token, clientTime: 1, isTest: test), now: 2
                ).id
            }
            // Marked itself, and in a test profile: still one candidate.
            let both = try add(tester, resourceId, "t-both", test: true)
            let profileOnly = try add(tester, other.id, "t-profile", test: false)
            let marked = try add(plain, resourceId, "t-marked", test: true)
            _ = try add(plain, resourceId, "t-plain", test: false)
            _ = try add(stranger, elsewhereResource.id, "t-stranger", test: true)
            return (both, profileOnly, marked)
        }
        let all = try await fixture.store.read {
            try $0.testPushCandidates(projectId: projectId, resourceId: nil, limit: 100)
        }
        #expect(all.map(\.subscription.id) == [ids.0, ids.1, ids.2].sorted())
        let inResource = try await fixture.store.read {
            try $0.testPushCandidates(projectId: projectId, resourceId: resourceId, limit: 100)
        }
        #expect(inResource.map(\.subscription.token).sorted() == ["t-both", "t-marked"])
        let limited = try await fixture.store.read {
            try $0.testPushCandidates(projectId: projectId, resourceId: nil, limit: 1)
        }
        #expect(limited.count == 1)
    }
}
