import Foundation
import TernHTTP
import TernProtocol

/// What an APNs answer means for the delivery.
enum APNsAnswer: Equatable {
    case outcome(DeliveryOutcome)
    /// 403 `ExpiredProviderToken`: make a new provider token and send again.
    case renewProviderToken

    private struct Body: Decodable {
        let reason: String?
        let timestamp: Double?
    }

    static func read(_ response: HTTP2Response, now: Date = Date()) -> APNsAnswer {
        if response.status == 200 { return .outcome(.sent(providerMessageId: response.header("apns-id"))) }
        let body = try? JSONDecoder().decode(Body.self, from: response.body)
        let reason = body?.reason ?? "no reason given"
        let text = "APNs \(response.status) \(reason)"
        switch (response.status, reason) {
        case (410, _):
            // The timestamp is in milliseconds since 1970: when the token stopped being valid.
            let since = body?.timestamp.map { Date(timeIntervalSince1970: $0 / 1000) }
            return .outcome(.invalidToken(reason: text, since: since))
        case (400, "BadDeviceToken"), (400, "DeviceTokenNotForTopic"):
            return .outcome(.invalidToken(reason: text, since: nil))
        case (403, "ExpiredProviderToken"):
            return .renewProviderToken
        case (403, "InvalidProviderToken"), (403, "MissingProviderToken"), (403, "BadCertificateEnvironment"),
            (403, "BadCertificate"):
            return .outcome(
                .failed(reason: "\(text): check the team id, key id and .p8 key of the project's APNs credentials"))
        case (429, _), (500...599, _):
            return .outcome(.retry(after: RetryAfter.seconds(response.header("retry-after"), now: now), reason: text))
        default:
            return .outcome(.failed(reason: text))
        }
    }
}
