import Foundation
import TernProtocol

/// What the app can rely on about who the installation is bound to: the binding the server
/// **confirmed** last, the operations still queued, and a login halted because the mode changed.
/// A queued logout is not a confirmed one: until ``confirmed`` says anonymous, the server may still
/// deliver the previous person's messages to this device.
///
/// ```swift
/// let state = await Tern.shared.identity.identityState
/// if state.confirmedExternalId == nil, state.pending.isEmpty { showSignedOut() }
/// ```
public struct IdentityState: Sendable, Equatable {
    /// The binding the server confirmed last; nil before the first confirmation on this device.
    public var confirmed: IdentityBinding?
    /// The logins and logouts queued and not yet confirmed, oldest first.
    public var pending: [PendingIdentityOperation]
    /// The login the SDK halted (`IDENTITY_AUTH_MODE_CHANGED`), until the next login.
    public var halted: IdentityHalt?

    /// The person the server confirmed the installation is bound to; nil when anonymous or unconfirmed.
    public var confirmedExternalId: String? { confirmed?.externalId }

    /// True when nothing is queued: ``confirmed`` is the installation's binding as far as this SDK knows.
    public var isSettled: Bool { pending.isEmpty }
}

/// A queued identity operation, as ``IdentityState`` shows it (never its proof).
public struct PendingIdentityOperation: Sendable, Equatable {
    /// The operation's id, sent as `operation_id`.
    public var operationId: String
    /// Login or logout.
    public var kind: IdentityOperationKind
    /// The person a login names; nil for a logout (or a login from `authenticate()` before its JWT is read).
    public var externalId: String?
    /// The mode it was made in (`IdentityMode.auto` until the policy is read).
    public var mode: IdentityMode
}

/// A login the SDK stopped because the identity mode changed under it: after a restart with
/// another configured mode, or when the project's policy changed mode while it was unconfirmed.
/// Log in again to make a new operation in the current mode (a logout first, when bound).
public struct IdentityHalt: Codable, Sendable, Equatable {
    /// Always `IDENTITY_AUTH_MODE_CHANGED`.
    public var code: String
    /// The halted operation's id.
    public var operationId: String
    /// The person the login named, if known.
    public var externalId: String?
    /// The mode the login was made in.
    public var fromMode: IdentityMode
    /// The mode in force now.
    public var toMode: IdentityMode
    /// Why, in words a person can act on.
    public var reason: String

    /// A halt.
    ///
    /// - Parameters:
    ///   - operationId: The halted operation.
    ///   - externalId: Its person.
    ///   - fromMode: Its mode.
    ///   - toMode: The mode now.
    ///   - reason: Why.
    public init(operationId: String, externalId: String?, fromMode: IdentityMode, toMode: IdentityMode, reason: String)
    {
        code = IdentityWire.authModeChanged
        self.operationId = operationId
        self.externalId = externalId
        self.fromMode = fromMode
        self.toMode = toMode
        self.reason = reason
    }

    enum CodingKeys: String, CodingKey {
        case code, reason
        case operationId = "operation_id"
        case externalId = "external_id"
        case fromMode = "from_mode"
        case toMode = "to_mode"
    }
}

/// The app's backend, asked for a VERIFIED login's JWT (the reference's authentication callback).
/// The backend checks the person's session and that `externalId` is theirs, then signs a JWT with
/// one of the project's keys: `aud` the project's audience, integer `iat`/`exp` at most an hour
/// apart (300 s is usual), `identity.external_id`. Without one, the SDK asks the ``JWTInterface``.
/// The SDK never logs the token.
///
/// ```swift
/// struct Backend: IdentityTokenProvider {
///     func identityToken(externalId: String) async -> String? {
///         try? await api.post("/identity-token", ["external_id": externalId])
///     }
/// }
/// Tern.shared.identity.setIdentityTokenProvider(Backend())
/// ```
public protocol IdentityTokenProvider: Sendable {
    /// A JWT proving `externalId`, or nil when the backend refuses (the login then fails; it is
    /// never sent as BASIC instead).
    ///
    /// - Parameter externalId: The person the login names.
    /// - Returns: The JWT, or nil.
    func identityToken(externalId: String) async -> String?
}
