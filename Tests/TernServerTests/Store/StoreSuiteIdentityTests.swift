import Foundation
import TernProtocol
import TernTestSupport
import Testing

@testable import TernServer

/// The identity journal's store operations and its service, on every backend: an operation applied
/// once whatever the repeats, stale expectations refused with 409, the subscription moved and back.
@Suite struct StoreSuiteIdentityTests {
    static let token = "identity-store-token"

    /// The fixture with an anonymous profile holding the device's subscription.
    static func installed(_ fixture: StoreFixture) async throws -> (Caller, Int64) {
        let resource = fixture.resource
        let anonymous = try await fixture.store.write { tx in
            let profile = try tx.createProfile(dbId: fixture.database.id, publicId: "anon0000", now: 1)
            _ = try tx.insertSubscription(
                SubscriptionValues(
                    profileId: profile.id, resourceId: resource.id, channel: .push, provider: .apns, token: token,
                    status: .subscribed, hashId: "h0", clientTime: 1), now: 1)
            return profile.id
        }
        return (
            Caller(project: fixture.project, resource: resource, database: fixture.database, identity: nil), anonymous
        )
    }

    static func change(
        _ kind: IdentityOperationKind, externalId: String? = nil, expected: String, operation: String,
        revision: Int64? = nil
    ) -> IdentityChangeRequest {
        IdentityChangeRequest(
            provider: "ios-apns", subscriptionId: token, operation: kind, externalId: externalId,
            expectedBindingId: expected, expectedPolicyRevision: revision, operationId: operation)
    }

    static func decode(_ answer: Answer) throws -> IdentityAnswer {
        try JSONDecoder().decode(IdentityAnswer.self, from: answer.body)
    }

    @Test(arguments: StoreFactory.all)
    func policiesAndInstallationsRoundTrip(factory: StoreFactory) async throws {
        let fixture = try await StoreFixture(factory)
        defer { Task { await fixture.finish() } }
        let projectId = fixture.project.id
        let resourceId = fixture.resource.id
        #expect(try await fixture.store.read { try $0.identityPolicy(projectId: projectId) } == nil)
        try await fixture.store.write {
            try $0.setIdentityPolicy(projectId: projectId, IdentityPolicy(mode: .verified, revision: 2), now: 5)
        }
        #expect(
            try await fixture.store.read { try $0.identityPolicy(projectId: projectId) }
                == IdentityPolicy(mode: .verified, revision: 2))
        let installation = try await fixture.store.write { tx -> IdentityInstallation? in
            try tx.insertIdentityInstallation(
                resourceId: resourceId, provider: .apns, token: "t", anonymousProfileId: nil, now: 5)
            // A second insert (another writer first) changes nothing.
            try tx.insertIdentityInstallation(
                resourceId: resourceId, provider: .apns, token: "t", anonymousProfileId: nil, now: 6)
            return try tx.identityInstallation(resourceId: resourceId, provider: .apns, token: "t")
        }
        var found = try #require(installation)
        #expect(found.binding.bindingId == IdentityWire.initialBindingId && found.binding.version == 0)
        found.binding = IdentityBinding(
            bindingId: "b1", externalId: "ada", mode: .basic, version: 1, operationId: "op1", updatedAt: 7)
        let changed = found
        let installationId = found.id
        #expect(
            try await fixture.store.write { try $0.updateIdentityInstallation(changed, expectedBindingId: "initial") })
        #expect(
            try await !fixture.store.write { try $0.updateIdentityInstallation(changed, expectedBindingId: "initial") },
            "a stale expectation changes nothing")
        let applied = AppliedIdentityOperation(fingerprint: "f", status: 200, answer: Data("{}".utf8))
        try await fixture.store.write {
            try $0.insertIdentityOperation(installationId: installationId, operationId: "op1", applied, now: 7)
        }
        #expect(
            try await fixture.store.read {
                try $0.identityOperation(installationId: installationId, operationId: "op1")
            } == applied)
        #expect(try await fixture.store.read { try $0.identityOperationCount(installationId: installationId) } == 1)
        #expect(
            try await fixture.store.read {
                try $0.identityInstallation(resourceId: resourceId, provider: .apns, token: "t")
            }?
            .binding == changed.binding)
    }

    @Test(arguments: StoreFactory.all)
    func aLoginIsAppliedOnceAndALogoutGoesBackToTheAnonymousProfile(factory: StoreFactory) async throws {
        let fixture = try await StoreFixture(factory)
        defer { Task { await fixture.finish() } }
        let (caller, anonymous) = try await Self.installed(fixture)
        let service = IdentityService(store: fixture.store, verifier: CryptoTokenVerifier())
        // The anonymous binding's tags go with the change.
        let anonymousSubscription = try #require(
            try await fixture.store.read { tx in
                try tx.subscriptions(
                    resourceId: caller.resource.id, channel: .push, provider: .apns, token: Self.token
                ).first
            })
        try await fixture.store.write {
            try $0.setTags(subscriptionId: anonymousSubscription.id, ["tier": "gold"], now: 2)
        }
        let login = Self.change(.login, externalId: "ada", expected: IdentityWire.initialBindingId, operation: "op-1")
        let first = try await service.change(login, caller: caller)
        let again = try await service.change(login, caller: caller)
        #expect(first.status == 200 && again.status == 200 && again.replayed && again.body == first.body)
        let bound = try #require(try Self.decode(first).binding)
        #expect(bound.externalId == "ada" && bound.version == 1 && bound.mode == .basic && bound.operationId == "op-1")
        let subscriptions = try await fixture.store.read { tx in
            try tx.subscriptions(
                resourceId: caller.resource.id, channel: .push, provider: .apns, token: Self.token)
        }
        #expect(subscriptions.count == 2)
        #expect(subscriptions.first { $0.profileId == anonymous }?.status == .suspended)
        #expect(subscriptions.first { $0.profileId != anonymous }?.status == .subscribed)
        #expect(try await fixture.store.read { try $0.tags(subscriptionId: anonymousSubscription.id) }.isEmpty)
        // Ada's profile is the one whose _external_id field is hers.
        let adas = try await fixture.store.read { tx in
            try tx.profiles(dbId: fixture.database.id, field: IdentityService.externalIdField, value: .string("ada"))
        }
        #expect(adas.map(\.id) == subscriptions.filter { $0.profileId != anonymous }.map(\.profileId))
        // The same id for another change is refused; a stale binding id is a conflict.
        await #expect(throws: (any Error).self) {
            _ = try await service.change(
                Self.change(.logout, expected: bound.bindingId, operation: "op-1"), caller: caller)
        }
        do {
            _ = try await service.change(Self.change(.logout, expected: "initial", operation: "op-2"), caller: caller)
            Issue.record("a stale expected_binding_id was accepted")
        } catch let error as any HTTPResponseError {
            #expect(error.response.status == 409)
            #expect(String(decoding: error.response.body, as: UTF8.self).contains(IdentityWire.rebindConflict))
        }
        let logout = try await service.change(
            Self.change(.logout, expected: bound.bindingId, operation: "op-3"), caller: caller)
        #expect(try Self.decode(logout).binding?.externalId == nil)
        let after = try await fixture.store.read { tx in
            try tx.subscriptions(
                resourceId: caller.resource.id, channel: .push, provider: .apns, token: Self.token)
        }
        #expect(after.first { $0.profileId == anonymous }?.status == .subscribed)
        #expect(after.first { $0.profileId != anonymous }?.status == .suspended)
        let view = try await service.installation(
            resourceId: caller.resource.id, provider: "ios-apns", token: Self.token)
        #expect(view.operations == 2 && view.binding.version == 2)
    }

    @Test(arguments: StoreFactory.all)
    func aChangedPolicyRevisionIsAConflictAndBasicIsRefusedInVerified(factory: StoreFactory) async throws {
        let fixture = try await StoreFixture(factory)
        defer { Task { await fixture.finish() } }
        let (caller, _) = try await Self.installed(fixture)
        let service = IdentityService(store: fixture.store, verifier: CryptoTokenVerifier())
        let policy = try await service.setPolicy(
            projectId: fixture.project.id, IdentityPolicyChange(mode: .verified))
        #expect(policy == IdentityPolicy(mode: .verified, revision: 2))
        func refusal(_ request: IdentityChangeRequest) async throws -> (Int, IdentityAnswer) {
            do {
                _ = try await service.change(request, caller: caller)
            } catch let error as any HTTPResponseError {
                return (error.response.status, try JSONDecoder().decode(IdentityAnswer.self, from: error.response.body))
            }
            throw TestFailure()
        }
        let (stale, conflict) = try await refusal(
            Self.change(.login, externalId: "ada", expected: "initial", operation: "o1", revision: 1))
        #expect(stale == 409 && conflict.code == IdentityWire.rebindConflict)
        #expect(conflict.field == "expected_policy_revision" && conflict.policy?.revision == 2)
        let (mismatch, basic) = try await refusal(
            Self.change(.login, externalId: "ada", expected: "initial", operation: "o2", revision: 2))
        #expect(mismatch == 403 && basic.code == IdentityWire.modeMismatch && basic.field == "external_id")
        await #expect(throws: (any Error).self) {
            try await service.setPolicy(projectId: fixture.project.id, IdentityPolicyChange(mode: .auto))
        }
    }
}
