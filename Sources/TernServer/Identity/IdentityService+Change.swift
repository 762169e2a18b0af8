import Foundation
import TernCrypto
import TernProtocol

extension IdentityService {
    /// `identity/change`: applies one login or logout to the installation's binding, once per
    /// operation id (a repeat answers what the first got, whatever changed since). In order: an
    /// applied operation id answers its stored result; a login's JWT is verified (401 naming
    /// `token`); the policy revision a login expects must be the current one, and the binding id the
    /// change expects the current one (409 `IDENTITY_REBIND_CONFLICT`, with both as they stand); a
    /// BASIC login in a VERIFIED project is refused (403 naming `external_id`).
    func change(_ request: IdentityChangeRequest, caller: Caller) async throws -> Answer {
        let provider = try Self.validate(request)
        let token = request.subscriptionId
        // A repeat of an applied operation answers its result before anything is checked again
        // (its JWT may have expired since).
        if let replay = try await store.read({ tx in try Self.replay(tx, caller: caller, request) }) {
            return replay
        }
        var externalId = request.externalId
        var mode = IdentityMode.basic
        if let jwt = request.token {
            let keys = try await store.read { tx in try tx.jwtKeys(projectId: caller.project.id) }
            externalId = try proof.externalId(
                jwt, project: caller.project, keys: keys, now: Date(timeIntervalSince1970: Double(clock()) / 1000))
            mode = .verified
        }
        let person = request.operation == .login ? externalId : nil
        let loginMode = mode
        let now = clock()
        return try await store.write { tx in
            if let replay = try Self.replay(tx, caller: caller, request) { return replay }
            let subscriptions = try Self.subscriptions(tx, caller: caller, provider, token)
            var installation = try Self.installation(tx, caller: caller, provider, token, subscriptions, now)
            let policy = try tx.identityPolicy(projectId: caller.project.id) ?? Self.defaultPolicy
            if let expected = request.expectedPolicyRevision, expected != policy.revision {
                throw IdentityError.conflict(
                    "expected_policy_revision",
                    "the project's identity policy is at revision \(policy.revision) (\(policy.mode.rawValue)), "
                        + "not \(expected): read identity/policy and decide again", installation.binding, policy)
            }
            let expectedBinding = request.expectedBindingId
            guard expectedBinding == installation.binding.bindingId else {
                throw IdentityError.conflict(
                    "expected_binding_id",
                    "the installation's binding is \(installation.binding.bindingId), not \(expectedBinding.prefix(64)): "
                        + "read identity/status and decide again", installation.binding, policy)
            }
            if request.operation == .login, loginMode == .basic, policy.mode == .verified {
                throw IdentityError(
                    status: 403, code: IdentityWire.modeMismatch, field: "external_id",
                    reason: "project \(caller.project.id) is VERIFIED: a login sends a JWT from the app's backend "
                        + "(token), not an external_id alone")
            }
            let target = try person.map { try Self.profile(tx, caller: caller, externalId: $0, now: now) }
            let suspended = try Self.move(
                tx, subscriptions, to: target ?? installation.anonymousProfileId.flatMap { try tx.profile(id: $0) },
                resourceId: caller.resource.id, now: now)
            // A login takes the anonymous profile's waits along, when it leaves that profile without a
            // subscribed device; a logout leaves the person's with them.
            if let target, let anonymous = installation.anonymousProfileId, suspended.contains(anonymous) {
                try TriggerWaits.follow(
                    tx, directory: store.triggerDirectory, projectId: caller.project.id, from: anonymous, to: target.id,
                    now: now)
            }
            installation.profileId = target?.id
            installation.binding = IdentityBinding(
                bindingId: Digest.randomHex(bytes: 12), externalId: person, mode: person == nil ? nil : loginMode,
                version: installation.binding.version + 1, operationId: request.operationId, updatedAt: now)
            guard try tx.updateIdentityInstallation(installation, expectedBindingId: expectedBinding) else {
                throw StoreError.conflict("the installation's binding changed during the request")
            }
            let answer = IdentityAnswer(binding: installation.binding, operationId: request.operationId)
            let body = try JSONCoders.encoder.encode(answer)
            try tx.insertIdentityOperation(
                installationId: installation.id, operationId: request.operationId,
                AppliedIdentityOperation(fingerprint: Self.fingerprint(request), status: 200, answer: body), now: now)
            return Answer(status: 200, body: body)
        }
    }

    /// What an operation asks, without its proof: a retry may carry a fresh JWT for the same login.
    static func fingerprint(_ request: IdentityChangeRequest) -> String {
        let asked = [
            request.operation.rawValue, request.externalId ?? "", request.token == nil ? "" : "token",
            request.expectedBindingId,
        ]
        return Digest.sha256Hex(asked.joined(separator: "\u{0}"))
    }

    /// The stored answer when this operation was applied to the installation already; 422 when its
    /// id was used for another change.
    static func replay(_ tx: any StoreTransaction, caller: Caller, _ request: IdentityChangeRequest) throws
        -> Answer?
    {
        guard let provider = PushProvider(rawValue: request.provider),  // checked by change(_:caller:)
            let installation = try tx.identityInstallation(
                resourceId: caller.resource.id, provider: provider, token: request.subscriptionId),
            let applied = try tx.identityOperation(installationId: installation.id, operationId: request.operationId)
        else { return nil }
        guard applied.fingerprint == fingerprint(request) else {
            throw IdentityError(
                status: 422, code: IdentityWire.operationReused, field: "operation_id",
                reason: "this operation id was applied to another change of the installation: send a new one")
        }
        return Answer(status: applied.status, body: applied.answer, replayed: true)
    }

    /// The installation's row, made at its initial binding on its first change; the anonymous
    /// profile is the one that holds the token then (subscribed first).
    static func installation(
        _ tx: any StoreTransaction, caller: Caller, _ provider: PushProvider, _ token: String,
        _ subscriptions: [Subscription], _ now: Int64
    ) throws -> IdentityInstallation {
        if let found = try tx.identityInstallation(resourceId: caller.resource.id, provider: provider, token: token) {
            return found
        }
        let holder = subscriptions.first { $0.status == .subscribed } ?? subscriptions.first
        try tx.insertIdentityInstallation(
            resourceId: caller.resource.id, provider: provider, token: token, anonymousProfileId: holder?.profileId,
            now: now)
        guard let made = try tx.identityInstallation(resourceId: caller.resource.id, provider: provider, token: token)
        else { throw StoreError.backend("an identity installation was written and not found again") }
        return made
    }

    /// The person's profile in the resource's database (by its `_external_id` field), made when absent.
    static func profile(_ tx: any StoreTransaction, caller: Caller, externalId: String, now: Int64) throws -> Profile {
        let dbId = caller.resource.dbId
        if let found = try tx.profiles(dbId: dbId, field: externalIdField, value: .string(externalId)).first {
            return found
        }
        if let found = try ProfileResolver.claimNewKey(
            tx, dbId: dbId, field: externalIdField, value: .string(externalId))?
            .first
        {
            return found
        }
        let profile = try tx.createProfile(dbId: dbId, publicId: Profile.newPublicId(now: now), now: now)
        try tx.setProfileField(profileId: profile.id, name: externalIdField, value: .string(externalId))
        return profile
    }

    /// The device's push subscription goes to `target`: subscribed there (a copy of the one that was
    /// subscribed when it has none), suspended everywhere else. Tags go with every status that changes.
    /// Answers the profiles whose subscription it suspended.
    @discardableResult
    static func move(
        _ tx: any StoreTransaction, _ subscriptions: [Subscription], to target: Profile?, resourceId: Int64, now: Int64
    ) throws -> Set<Int64> {
        var landed = false
        var suspended: Set<Int64> = []
        for read in subscriptions {
            var subscription = read
            if subscription.profileId == target?.id {
                landed = true
                guard subscription.status != .subscribed else { continue }
                subscription.status = .subscribed
            } else {
                guard subscription.status == .subscribed else { continue }
                subscription.status = .suspended
                suspended.insert(subscription.profileId)
            }
            subscription.updatedAt = now
            try tx.updateSubscription(subscription, from: read)
            try tx.clearTags(subscriptionId: subscription.id)
        }
        guard let target, !landed,
            let model = subscriptions.first(where: { $0.status == .subscribed }) ?? subscriptions.first
        else { return suspended }
        var values = model.values
        values.profileId = target.id
        values.status = .subscribed
        values.hashId = SubscriptionService.hashId(
            target, resourceId, values.channel.storedProvider(values.provider), values.token)
        values.clientTime = now
        _ = try tx.insertSubscription(values, now: now)
        return suspended
    }
}
