import Foundation
import TernHTTP

/// Turns failures that happen before a provider answered into outcomes the engine can act on.
enum ProviderFailure {
    /// A transport failure (timeout, connection, TLS, reset, GOAWAY mid-stream) as an outcome:
    /// temporary, except a request the client refused as malformed.
    static func outcome(_ error: any Error, provider: String) -> DeliveryOutcome {
        switch error {
        case let error as HTTP2ClientError:
            switch error.kind {
            case .invalidRequest: return .failed(reason: "\(provider): the request could not be made: \(error.reason)")
            case .tls:
                return .retry(
                    after: nil,
                    reason: "\(provider): TLS failed (check the CA and the provider's address): \(error.reason)")
            default: return .retry(after: nil, reason: "\(provider): \(error.kind.rawValue): \(error.reason)")
            }
        case let error as ProviderAuthError:
            return error.temporary
                ? .retry(after: error.retryAfter, reason: error.reason) : .failed(reason: error.reason)
        case is CancellationError:
            return .retry(after: nil, reason: "\(provider): cancelled before an answer (the server is stopping)")
        default:
            return .retry(after: nil, reason: "\(provider): \(error)")
        }
    }
}

/// Getting a provider's access token failed.
struct ProviderAuthError: Error, Sendable, CustomStringConvertible {
    /// For example `"FCM OAuth token: 400 invalid_grant: Invalid JWT Signature"`.
    let reason: String
    /// True when trying later may help (network, 5xx); false for refused credentials.
    let temporary: Bool
    var retryAfter: TimeInterval? = nil

    var description: String { reason }
}

/// An outcome decided before anything was sent (payload too large, a malformed token, …),
/// carried out of a throwing path.
struct DeliveryOutcomeError: Error {
    let outcome: DeliveryOutcome

    static func failed(reason: String) -> DeliveryOutcomeError {
        DeliveryOutcomeError(outcome: .failed(reason: reason))
    }

    static func invalidToken(reason: String, since: Date?) -> DeliveryOutcomeError {
        DeliveryOutcomeError(outcome: .invalidToken(reason: reason, since: since))
    }
}
