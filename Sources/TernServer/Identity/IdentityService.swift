import Foundation
import TernCrypto
import TernProtocol

/// The identity binding of installations, and the projects' identity policies.
///
/// An **installation** is the device's push subscription identity on a resource: the rToken's
/// resource with the device's provider and push token (`subscription_id`). The SDK already holds
/// both; the token is known only to the device and its push provider, and the installation must have
/// a push subscription on that resource (`push/subscribe` first). Its binding says which person
/// (`external_id`) it is bound to; a change names the binding it expects and an operation id, and
/// moves the device's push subscription to that person's profile (the profile whose
/// `_external_id` field is the id, in the resource's database, made when absent) or, on logout, back
/// to the profile that held the token when the installation was first seen. The tags of the
/// bindings a change ends or starts are cleared.
struct IdentityService: Sendable {
    let store: any Store
    let proof: IdentityProof
    let clock: @Sendable () -> Int64

    /// The profile field that holds a bound person's external id.
    static let externalIdField = "_external_id"
    /// A project that never set its policy.
    static let defaultPolicy = IdentityPolicy(mode: .basic, revision: 1)

    init(
        store: any Store, verifier: any TokenVerifier, clock: @escaping @Sendable () -> Int64 = ServerClock.milliseconds
    ) {
        self.store = store
        proof = IdentityProof(verifier: verifier)
        self.clock = clock
    }

    // MARK: Reads

    /// `identity/status`: the installation's binding (`initial`, version 0, before its first change).
    func status(_ request: IdentityInstallationRequest, caller: Caller) async throws -> IdentityAnswer {
        try Self.validate(request.provider, request.subscriptionId)
        let now = clock()
        return try await store.read { tx in
            IdentityAnswer(binding: try Self.binding(tx, caller: caller, request.provider, request.subscriptionId, now))
        }
    }

    /// `identity/policy`: the binding and the project's policy, read together.
    func policyAndBinding(_ request: IdentityInstallationRequest, caller: Caller) async throws
        -> IdentityAnswer
    {
        try Self.validate(request.provider, request.subscriptionId)
        let now = clock()
        return try await store.read { tx in
            IdentityAnswer(
                binding: try Self.binding(tx, caller: caller, request.provider, request.subscriptionId, now),
                policy: try tx.identityPolicy(projectId: caller.project.id) ?? Self.defaultPolicy)
        }
    }

    private static func binding(
        _ tx: any StoreTransaction, caller: Caller, _ provider: String, _ token: String, _ now: Int64
    ) throws -> IdentityBinding {
        if let installation = try tx.identityInstallation(
            resourceId: caller.resource.id, provider: provider, token: token)
        {
            return installation.binding
        }
        _ = try subscriptions(tx, caller: caller, provider, token)
        return initialBinding(now)
    }

    static func initialBinding(_ now: Int64) -> IdentityBinding {
        IdentityBinding(
            bindingId: IdentityWire.initialBindingId, externalId: nil, mode: nil, version: 0, operationId: nil,
            updatedAt: now)
    }

    /// The push subscriptions of this token on the caller's resource: the installation exists only
    /// when there is one.
    static func subscriptions(_ tx: any StoreTransaction, caller: Caller, _ provider: String, _ token: String)
        throws -> [Subscription]
    {
        let found = try tx.subscriptions(
            resourceId: caller.resource.id, channel: .push, provider: provider, token: token)
        guard !found.isEmpty else {
            throw IdentityError(
                status: 404, code: IdentityWire.unknownInstallation, field: "subscription_id",
                reason: "no push subscription with this \(provider) token on resource \(caller.resource.id): "
                    + "subscribe the device (push/subscribe) before changing its identity")
        }
        return found
    }

    // MARK: Policy

    /// The project's policy (BASIC at revision 1 when never set).
    func policy(projectId: Int64) async throws -> IdentityPolicy {
        try await store.read { tx in
            guard try tx.project(id: projectId) != nil else {
                throw APIError.notFound("project_id: project \(projectId) does not exist")
            }
            return try tx.identityPolicy(projectId: projectId) ?? Self.defaultPolicy
        }
    }

    /// Sets the project's mode: every call is a new revision (the SDK's AUTO logins read before it
    /// get 409 `IDENTITY_REBIND_CONFLICT`).
    func setPolicy(projectId: Int64, _ change: IdentityPolicyChange) async throws -> IdentityPolicy {
        guard change.mode != .auto else {
            throw APIError.badRequest(
                "mode: auto is how an SDK follows the project's policy, not a project's mode: use basic or verified")
        }
        let now = clock()
        return try await store.write { tx in
            guard try tx.project(id: projectId) != nil else {
                throw APIError.notFound("project_id: project \(projectId) does not exist")
            }
            let current = try tx.identityPolicy(projectId: projectId) ?? Self.defaultPolicy
            let next = IdentityPolicy(mode: change.mode, revision: current.revision + 1)
            try tx.setIdentityPolicy(projectId: projectId, next, now: now)
            return next
        }
    }

    /// The installation's binding and how many operations it applied (the management API).
    func installation(resourceId: Int64, provider: String, token: String) async throws
        -> IdentityInstallationView
    {
        try Self.validate(provider, token)
        return try await store.read { tx in
            guard
                let installation = try tx.identityInstallation(resourceId: resourceId, provider: provider, token: token)
            else {
                throw APIError.notFound(
                    "no identity binding for this \(provider) token on resource \(resourceId): it never changed")
            }
            return IdentityInstallationView(
                binding: installation.binding,
                operations: try tx.identityOperationCount(installationId: installation.id))
        }
    }

    // MARK: Validation

    static func validate(_ provider: String, _ token: String) throws(IdentityError) {
        do { try Validation.provider(provider) } catch { throw .from(error, field: "provider") }
        do { try Validation.token(token) } catch { throw .from(error, field: "subscription_id") }
    }

    static func validate(_ request: IdentityChangeRequest) throws(IdentityError) {
        try validate(request.provider, request.subscriptionId)
        try identifier(request.operationId, field: "operation_id")
        try identifier(request.expectedBindingId, field: "expected_binding_id")
        if let revision = request.expectedPolicyRevision, revision < 1 {
            throw .invalid("expected_policy_revision", "must be a revision the policy had (1 or more), not \(revision)")
        }
        switch request.operation {
        case .logout:
            if request.externalId != nil {
                throw .invalid("external_id", "a logout sends neither external_id nor token")
            }
            if request.token != nil { throw .invalid("token", "a logout sends neither external_id nor token") }
            if request.expectedPolicyRevision != nil {
                throw .invalid("expected_policy_revision", "a logout needs no policy: leave it out")
            }
        case .login:
            switch (request.externalId, request.token) {
            case (nil, nil):
                throw .invalid(
                    "external_id", "a login sends external_id (BASIC) or token (VERIFIED): neither was sent")
            case (.some, .some):
                throw .invalid("token", "a login sends external_id (BASIC) or token (VERIFIED), not both")
            case (let externalId?, nil):
                if let problem = IdentityWire.problem(externalId: externalId) {
                    throw .invalid("external_id", String(problem.dropFirst("external_id ".count)))
                }
            case (nil, let token?):
                guard !token.isEmpty, TextLength.fits(token, max: IdentityWire.maxTokenLength) else {
                    throw .invalid("token", "must be a JWT of 1 to \(IdentityWire.maxTokenLength) characters")
                }
            }
        }
    }

    private static func identifier(_ value: String, field: String) throws(IdentityError) {
        let printable = value.unicodeScalars.allSatisfy { $0.value >= 0x21 && $0.value <= 0x7E }
        guard !value.isEmpty, value.count <= IdentityWire.maxIdLength, printable else {
            throw .invalid(field, "must be 1 to \(IdentityWire.maxIdLength) printable ASCII characters, e.g. a UUID")
        }
    }
}

/// `PUT /admin/projects/{project_id}/identity-policy`'s body.
struct IdentityPolicyChange: Codable, Sendable, Equatable {
    /// `basic` or `verified`.
    var mode: IdentityMode
}

/// An installation's binding as the management API shows it.
struct IdentityInstallationView: Codable, Sendable, Equatable {
    var binding: IdentityBinding
    /// How many operations were applied to it.
    var operations: Int64
}
