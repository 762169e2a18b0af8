import Foundation

/// Events of the identity binding journal (`Tern.shared.identity`, and the logins and logouts that
/// `authenticate()` and `logOut()` queue). Their `value` holds `operation_id`, and where it applies
/// `external_id`, `binding_id`, `http_code`, `code`, `field` and `reason`; never a proof.
public enum IdentityEvents: String, SDKEvent, CaseIterable, Equatable {
    /// A login or logout was written to the journal; it is not confirmed yet.
    /// Message: "identity operation queued".
    case identityOperationQueued
    /// The server confirmed a login: the installation is bound to `external_id`.
    /// Message: "identity login confirmed".
    case identityLoginConfirmed
    /// The server confirmed a logout: the installation is anonymous.
    /// Message: "identity logout confirmed".
    case identityLogoutConfirmed
    /// An identity operation got no answer, a 5xx, 408 or 429: the SDK sends it again later (a
    /// ``RetryEvent``). Message: "identity operation not confirmed yet: retrying".
    case identityOperationRetry
    /// The server answered 409 `IDENTITY_REBIND_CONFLICT`: the SDK read the binding (and policy) and
    /// decided again. `field` names what moved. Message: "identity binding changed: reconciled".
    case identityRebindConflict
    /// A login halted: the mode changed under it (`code` `IDENTITY_AUTH_MODE_CHANGED`); see
    /// ``IdentityHalt``. Message: "IDENTITY_AUTH_MODE_CHANGED: the identity mode changed under an unfinished login".
    case identityAuthModeChanged
    /// The server refused an identity operation (a forged or expired JWT, a BASIC login in a VERIFIED
    /// project, …); it is removed from the journal. `code`, `field` and `reason` say why.
    /// Message: "identity operation refused".
    case identityOperationFailed
    /// A login or logout could not be queued: `reason` (and `field`) say why (an empty external id, no
    /// rToken). Message: "invalid identity request data".
    case invalidIdentityRequestData

    static let moduleName = "identity"
    public var module: String { Self.moduleName }

    public var message: String {
        switch self {
        case .identityOperationQueued: "identity operation queued"
        case .identityLoginConfirmed: "identity login confirmed"
        case .identityLogoutConfirmed: "identity logout confirmed"
        case .identityOperationRetry: "identity operation not confirmed yet: retrying"
        case .identityRebindConflict: "identity binding changed: reconciled"
        case .identityAuthModeChanged:
            "IDENTITY_AUTH_MODE_CHANGED: the identity mode changed under an unfinished login"
        case .identityOperationFailed: "identity operation refused"
        case .invalidIdentityRequestData: "invalid identity request data"
        }
    }
}
