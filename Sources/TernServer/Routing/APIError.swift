import Foundation

/// A failure the client can act on: an HTTP status and a reason that says what to change.
///
/// ```swift
/// throw APIError.badRequest("subscription_id is empty: send the device's push token")
/// ```
public struct APIError: Error, Equatable, Sendable, CustomStringConvertible {
    let status: Int
    /// What the caller should change, sent as the envelope's `error_text`.
    public let reason: String

    public var description: String { "\(status): \(reason)" }

    static func badRequest(_ reason: String) -> APIError { APIError(status: 400, reason: reason) }
    static func unauthorized(_ reason: String) -> APIError { APIError(status: 401, reason: reason) }
    static func notFound(_ reason: String) -> APIError { APIError(status: 404, reason: reason) }
    static func conflict(_ reason: String) -> APIError { APIError(status: 409, reason: reason) }
    static func gone(_ reason: String) -> APIError { APIError(status: 410, reason: reason) }
    static func unprocessable(_ reason: String) -> APIError { APIError(status: 422, reason: reason) }

    /// The reference's text for a profile field the platform cannot take.
    static func incorrectProfileField(_ name: String) -> APIError {
        .badRequest("Platform profile processing error: with field \"\(name)\": Incorrect field")
    }

    /// The reference's text for a subscription (custom) field that is not a scalar.
    static func invalidCustomField(_ name: String) -> APIError {
        .badRequest("Platform profile processing error: field \"\(name)\" is not valid: failed convert custom field")
    }

    /// The reference's text for a category the resource does not have.
    static let categoryNotFound = APIError.badRequest(
        "Platform profile processing error: field \"subscriptions.cats\" is not valid: category not found in resource")
}
