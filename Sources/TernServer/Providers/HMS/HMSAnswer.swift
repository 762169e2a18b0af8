import Foundation
import TernHTTP
import TernProtocol

/// What an HMS Push Kit answer means for the tokens of one request.
enum HMSAnswer: Equatable {
    /// Every token got the message (a partial success names the tokens that did not).
    case sent(requestId: String?, illegalTokens: Set<String>, reason: String)
    /// The same outcome for every token of the request.
    case all(DeliveryOutcome)
    /// 80200003: the access token expired; get a new one and send again.
    case renewAccessToken

    private struct Body: Decodable {
        let code: String?
        let msg: String?
        let requestId: String?
    }

    private struct Partial: Decodable {
        let illegalTokens: [String]?

        enum CodingKeys: String, CodingKey {
            case illegalTokens = "illegal_tokens"
        }
    }

    static func read(_ response: HTTP2Response, now: Date = Date()) -> HMSAnswer {
        let body = try? JSONDecoder().decode(Body.self, from: response.body)
        let code = body?.code ?? "none"
        let message = body?.msg ?? String(decoding: response.body.prefix(200), as: UTF8.self)
        let text = "HMS \(response.status) \(code): \(message)"
        switch code {
        case "80000000" where response.status == 200:
            return .sent(requestId: body?.requestId, illegalTokens: [], reason: "")
        case "80100000" where response.status == 200:
            // The message names the failed tokens as JSON inside a string.
            let partial = try? JSONDecoder().decode(Partial.self, from: Data(message.utf8))
            return .sent(
                requestId: body?.requestId, illegalTokens: Set(partial?.illegalTokens ?? []),
                reason: "HMS 80100000: the token is not valid for this app")
        case "80300007":
            return .all(.invalidToken(reason: text, since: nil))
        case "80200003":
            return .renewAccessToken
        case "80200001":
            return .all(.failed(reason: "\(text): check the app id and client secret of the project's HMS credentials"))
        default:
            if response.status == 429 || response.status >= 500 || code == "81000001" {
                return .all(.retry(after: RetryAfter.seconds(response.header("retry-after"), now: now), reason: text))
            }
            return .all(.failed(reason: text))
        }
    }
}
