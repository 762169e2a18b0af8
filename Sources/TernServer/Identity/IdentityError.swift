import Foundation
import TernHTTP
import TernProtocol

/// A refusal of the identity flow: its status, its code (`IDENTITY_REBIND_CONFLICT`, …), the
/// request's member at fault and the reason, with the binding and policy as they stand when the SDK
/// needs them to decide again. Renders the ``IdentityAnswer`` envelope.
struct IdentityError: Error, HTTPResponseError, Equatable {
    var status: Int
    var code: String
    var field: String?
    var reason: String
    var binding: IdentityBinding?
    var policy: IdentityPolicy?

    var answer: IdentityAnswer {
        IdentityAnswer(
            error: status, errorText: field.map { "\($0): \(reason)" } ?? reason, code: code, field: field,
            binding: binding, policy: policy)
    }

    var response: HTTPResponse {
        let body = (try? JSONCoders.encoder.encode(answer)) ?? Data()
        return .json(status, body)
    }

    static func invalid(_ field: String, _ reason: String) -> IdentityError {
        IdentityError(status: 400, code: IdentityWire.invalidRequest, field: field, reason: reason)
    }

    static func token(_ reason: String) -> IdentityError {
        IdentityError(status: 401, code: IdentityWire.invalidToken, field: "token", reason: reason)
    }

    /// The binding or the policy moved since the SDK read them.
    static func conflict(_ field: String, _ reason: String, _ binding: IdentityBinding, _ policy: IdentityPolicy)
        -> IdentityError
    {
        IdentityError(
            status: 409, code: IdentityWire.rebindConflict, field: field, reason: reason, binding: binding,
            policy: policy)
    }

    /// A validation failure of the shared checks, under its field.
    static func from(_ error: APIError, field: String) -> IdentityError {
        IdentityError(status: error.status, code: IdentityWire.invalidRequest, field: field, reason: error.reason)
    }
}
