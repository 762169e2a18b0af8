import Foundation

/// How a project's installations prove who signs in (`identity/change` with `operation: login`).
/// The project keeps one mode with a revision that grows at each change; the SDK follows it in
/// ``auto`` (`identity/policy`), or is told one explicitly.
public enum IdentityMode: String, Codable, Sendable, CaseIterable {
    /// A login names an `external_id` alone; the server does not verify that the person owns it.
    case basic
    /// A login carries a JWT signed by the app owner's backend (`token`), verified with the
    /// project's JWT keys; an `external_id` alone is refused.
    case verified
    /// The SDK reads the project's mode (`identity/policy`) and sends what it asks for, with the
    /// policy revision it read (`expected_policy_revision`). Never the mode of a project.
    case auto
}

/// The two changes of a binding.
public enum IdentityOperationKind: String, Codable, Sendable, CaseIterable {
    /// Binds the installation to a person (`external_id` or `token`).
    case login
    /// Makes the installation anonymous again (neither `external_id` nor `token`).
    case logout
}

/// `identity/status` and `identity/policy`: names the installation, the device's push
/// subscription on the rToken's resource (`provider`, `subscription_id`).
public struct IdentityInstallationRequest: Codable, Sendable, Equatable {
    /// The device's push provider (``PushProvider``'s wire name).
    public var provider: String
    /// The device's push token.
    public var subscriptionId: String

    /// A request naming the installation.
    ///
    /// - Parameters:
    ///   - provider: The device's push provider.
    ///   - subscriptionId: The device's push token.
    public init(provider: String, subscriptionId: String) {
        self.provider = provider
        self.subscriptionId = subscriptionId
    }

    enum CodingKeys: String, CodingKey {
        case provider
        case subscriptionId = "subscription_id"
    }
}

/// `identity/change`: one operation of the installation's binding journal.
///
/// A login in VERIFIED sends `token` only, in BASIC `external_id` only; a logout sends neither.
/// `expected_binding_id` is the binding the SDK last saw (a stale one answers 409
/// `IDENTITY_REBIND_CONFLICT`); `operation_id` makes the change idempotent: applied twice, it is
/// applied once and answers the same result.
public struct IdentityChangeRequest: Codable, Sendable, Equatable {
    /// The device's push provider.
    public var provider: String
    /// The device's push token.
    public var subscriptionId: String
    /// Login or logout.
    public var operation: IdentityOperationKind
    /// BASIC login: the person's id in the app.
    public var externalId: String?
    /// VERIFIED login: a JWT from the app owner's backend whose `identity.external_id` names the person.
    public var token: String?
    /// The binding the change applies to (``IdentityBinding/bindingId``).
    public var expectedBindingId: String
    /// AUTO login: the policy revision the SDK read; a different current one answers 409.
    public var expectedPolicyRevision: Int64?
    /// The operation's id, unique per installation (a UUID).
    public var operationId: String

    /// A change.
    ///
    /// - Parameters:
    ///   - provider: The device's push provider.
    ///   - subscriptionId: The device's push token.
    ///   - operation: Login or logout.
    ///   - externalId: BASIC login's external id; nil otherwise.
    ///   - token: VERIFIED login's JWT; nil otherwise.
    ///   - expectedBindingId: The binding the SDK last saw.
    ///   - expectedPolicyRevision: AUTO login's policy revision; nil otherwise.
    ///   - operationId: The operation's id.
    public init(
        provider: String, subscriptionId: String, operation: IdentityOperationKind, externalId: String? = nil,
        token: String? = nil, expectedBindingId: String, expectedPolicyRevision: Int64? = nil, operationId: String
    ) {
        self.provider = provider
        self.subscriptionId = subscriptionId
        self.operation = operation
        self.externalId = externalId
        self.token = token
        self.expectedBindingId = expectedBindingId
        self.expectedPolicyRevision = expectedPolicyRevision
        self.operationId = operationId
    }

    enum CodingKeys: String, CodingKey {
        case provider, operation, token
        case subscriptionId = "subscription_id"
        case externalId = "external_id"
        case expectedBindingId = "expected_binding_id"
        case expectedPolicyRevision = "expected_policy_revision"
        case operationId = "operation_id"
    }
}

/// An installation's binding as the server holds it.
public struct IdentityBinding: Codable, Sendable, Equatable {
    /// Changes at every applied change; what the next change names as `expected_binding_id`.
    public var bindingId: String
    /// The person the installation is bound to; nil when anonymous.
    public var externalId: String?
    /// The mode of the login that bound it (`basic` or `verified`); nil when anonymous.
    public var mode: IdentityMode?
    /// How many changes were applied to this installation.
    public var version: Int64
    /// The operation applied last; nil before the first.
    public var operationId: String?
    /// When the last change was applied (ms since 1970).
    public var updatedAt: Int64

    /// A binding.
    ///
    /// - Parameters:
    ///   - bindingId: The binding's id.
    ///   - externalId: The person, nil when anonymous.
    ///   - mode: The login's mode, nil when anonymous.
    ///   - version: How many changes were applied.
    ///   - operationId: The last operation applied.
    ///   - updatedAt: When (ms since 1970).
    public init(
        bindingId: String, externalId: String?, mode: IdentityMode?, version: Int64, operationId: String?,
        updatedAt: Int64
    ) {
        self.bindingId = bindingId
        self.externalId = externalId
        self.mode = mode
        self.version = version
        self.operationId = operationId
        self.updatedAt = updatedAt
    }

    /// True when the installation is bound to a person.
    public var isBound: Bool { externalId != nil }

    enum CodingKeys: String, CodingKey {
        case mode, version
        case bindingId = "binding_id"
        case externalId = "external_id"
        case operationId = "operation_id"
        case updatedAt = "updated_at"
    }
}

/// A project's identity policy: its mode (`basic` or `verified`) and its revision.
public struct IdentityPolicy: Codable, Sendable, Equatable {
    /// `basic` or `verified`.
    public var mode: IdentityMode
    /// Grows by one at every change of the policy; a new project starts at 1 in BASIC.
    public var revision: Int64

    /// A policy.
    ///
    /// - Parameters:
    ///   - mode: `basic` or `verified`.
    ///   - revision: The revision.
    public init(mode: IdentityMode, revision: Int64) {
        self.mode = mode
        self.revision = revision
    }
}

/// The answer of `identity/status`, `identity/policy` and `identity/change`, and of their
/// failures: the envelope's `error` and `error_text`, plus the binding (and policy) as they stand.
/// A refusal names its `code` (e.g. ``IdentityWire/rebindConflict``) and the `field` at fault.
public struct IdentityAnswer: Codable, Sendable, Equatable {
    /// The platform's error code (the HTTP status on failures); 0 on success.
    public var error: Int?
    /// The reason, empty on success.
    public var errorText: String?
    /// The failure's code, e.g. `IDENTITY_REBIND_CONFLICT`; nil on success.
    public var code: String?
    /// The request's member at fault, e.g. `expected_policy_revision`; nil when none is.
    public var field: String?
    /// The installation's binding now.
    public var binding: IdentityBinding?
    /// The project's policy now (`identity/policy`, and conflicts).
    public var policy: IdentityPolicy?
    /// The operation this answers (`identity/change`).
    public var operationId: String?

    /// An answer.
    ///
    /// - Parameters:
    ///   - error: The error code; 0 on success.
    ///   - errorText: The reason.
    ///   - code: The failure's code.
    ///   - field: The member at fault.
    ///   - binding: The binding.
    ///   - policy: The policy.
    ///   - operationId: The operation answered.
    public init(
        error: Int? = 0, errorText: String? = "", code: String? = nil, field: String? = nil,
        binding: IdentityBinding? = nil, policy: IdentityPolicy? = nil, operationId: String? = nil
    ) {
        self.error = error
        self.errorText = errorText
        self.code = code
        self.field = field
        self.binding = binding
        self.policy = policy
        self.operationId = operationId
    }

    enum CodingKeys: String, CodingKey {
        case error, code, field, binding, policy
        case errorText = "error_text"
        case operationId = "operation_id"
    }
}

/// The identity flow's names and limits, shared by both halves.
public enum IdentityWire {
    /// 409: the binding or the policy changed since the SDK read them; read them and decide again.
    public static let rebindConflict = "IDENTITY_REBIND_CONFLICT"
    /// The SDK's code for a login halted because the mode changed under it (never sent by the server).
    public static let authModeChanged = "IDENTITY_AUTH_MODE_CHANGED"
    /// 403: a BASIC login in a VERIFIED project (or a VERIFIED login where the mode is BASIC and none is wanted).
    public static let modeMismatch = "IDENTITY_MODE_MISMATCH"
    /// 401: the login's JWT is forged, expired, or not an identity token.
    public static let invalidToken = "IDENTITY_TOKEN_INVALID"
    /// 400: a member of the request is missing or malformed.
    public static let invalidRequest = "IDENTITY_REQUEST_INVALID"
    /// 404: no push subscription with this token on the rToken's resource.
    public static let unknownInstallation = "IDENTITY_INSTALLATION_UNKNOWN"
    /// 422: the operation id was used for a different change of this installation.
    public static let operationReused = "IDENTITY_OPERATION_REUSED"
    /// Longest external id, in characters.
    public static let maxExternalIdLength = 256
    /// Longest operation id and binding id, in characters.
    public static let maxIdLength = 64
    /// Longest identity JWT, in characters.
    public static let maxTokenLength = 8192
    /// The identity JWT's allowed lifetime (`exp − iat`), in seconds.
    public static let tokenLifetime: ClosedRange<Int64> = 1...3600
    /// The binding id of an installation the server has never changed.
    public static let initialBindingId = "initial"

    /// Why `externalId` cannot be one, nil when it can.
    public static func problem(externalId: String) -> String? {
        if externalId.isEmpty { return "external_id is empty: name the person (their id in the app)" }
        if !TextLength.fits(externalId, max: maxExternalIdLength) {
            return "external_id is longer than \(maxExternalIdLength) characters"
        }
        if externalId.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            return "external_id contains a control character"
        }
        return nil
    }
}
