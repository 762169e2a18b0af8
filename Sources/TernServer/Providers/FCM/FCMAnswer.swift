import Foundation
import TernHTTP
import TernProtocol

/// What an FCM HTTP v1 answer means for the delivery.
enum FCMAnswer: Equatable {
    case outcome(DeliveryOutcome)
    /// 401 UNAUTHENTICATED: the access token expired or was revoked; get a new one and send again.
    case renewAccessToken

    private struct Success: Decodable {
        let name: String?
    }

    private struct Failure: Decodable {
        let error: Status
    }

    private struct Status: Decodable {
        let code: Int?
        let message: String?
        let status: String?
        let details: [Detail]?
    }

    private struct Detail: Decodable {
        let type: String?
        let errorCode: String?
        let fieldViolations: [Violation]?

        enum CodingKeys: String, CodingKey {
            case type = "@type"
            case errorCode, fieldViolations
        }
    }

    private struct Violation: Decodable {
        let field: String?
        let description: String?
    }

    static func read(_ response: HTTP2Response, now: Date = Date()) -> FCMAnswer {
        if response.status == 200 {
            let name = (try? JSONDecoder().decode(Success.self, from: response.body))?.name
            return .outcome(.sent(providerMessageId: name))
        }
        let status = (try? JSONDecoder().decode(Failure.self, from: response.body))?.error
        let fcmCode = status?.details?.lazy.compactMap(\.errorCode).first
        let code = fcmCode ?? status?.status ?? "HTTP \(response.status)"
        let message = status?.message ?? String(decoding: response.body.prefix(200), as: UTF8.self)
        let text = "FCM \(response.status) \(code): \(message)"
        let retryAfter = RetryAfter.seconds(response.header("retry-after"), now: now)
        switch code {
        case "UNREGISTERED":
            return .outcome(.invalidToken(reason: text, since: nil))
        case "INVALID_ARGUMENT":
            let violations = status?.details?.flatMap { $0.fieldViolations ?? [] } ?? []
            let aboutToken =
                violations.contains { $0.field == "message.token" }
                || message.lowercased().contains("registration token")
            return .outcome(aboutToken ? .invalidToken(reason: text, since: nil) : .failed(reason: text))
        case "QUOTA_EXCEEDED", "UNAVAILABLE", "INTERNAL", "RESOURCE_EXHAUSTED":
            return .outcome(.retry(after: retryAfter, reason: text))
        case "THIRD_PARTY_AUTH_ERROR":
            return .outcome(
                .failed(reason: "\(text): upload the app's APNs key or certificate in the Firebase console"))
        case "SENDER_ID_MISMATCH":
            return .outcome(
                .failed(reason: "\(text): the token belongs to another Firebase project than the credentials"))
        case "UNAUTHENTICATED" where response.status == 401:
            return .renewAccessToken
        default:
            if response.status == 429 || response.status >= 500 {
                return .outcome(.retry(after: retryAfter, reason: text))
            }
            return .outcome(.failed(reason: text))
        }
    }
}
