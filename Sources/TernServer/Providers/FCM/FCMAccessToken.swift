import Foundation
import TernCrypto
import TernHTTP
import TernProtocol

/// Gets FCM's OAuth2 access token: a JWT signed with the service account's RSA key (RS256,
/// `kid` = `private_key_id`; `iss`, `scope`, `aud`, `iat`, `exp`) exchanged at the token endpoint
/// for a bearer token that lives an hour.
struct FCMAccessToken {
    static let scope = "https://www.googleapis.com/auth/firebase.messaging"

    let account: FCMServiceAccount
    let key: JWTSigningKey
    let tokenURL: URL
    let http: HTTP2Lanes
    let timeout: TimeInterval
    let clock: @Sendable () -> Date

    func fetch() async throws -> AccessTokenCache.Token {
        let now = clock()
        let iat = Int(now.timeIntervalSince1970)
        let claims: [String: Any] = [
            "iss": account.clientEmail, "scope": Self.scope, "aud": tokenURL.absoluteString, "iat": iat,
            "exp": iat + 3600,
        ]
        let assertion = try JWT.sign(
            claims: try JSONSerialization.data(withJSONObject: claims), key: key, algorithm: .rs256,
            header: ["kid": account.privateKeyId])
        let body = FormBody.encode([
            ("grant_type", "urn:ietf:params:oauth:grant-type:jwt-bearer"), ("assertion", assertion),
        ])
        return try await OAuthExchange.post(
            body, to: tokenURL, http: http, timeout: timeout, now: now, provider: "FCM",
            fix: "check the service account of the project's FCM credentials")
    }
}

/// `application/x-www-form-urlencoded` bodies.
enum FormBody {
    static func encode(_ fields: [(String, String)]) -> Data {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        let text = fields.map { name, value in
            let encode = { (text: String) in text.addingPercentEncoding(withAllowedCharacters: allowed) ?? "" }
            return encode(name) + "=" + encode(value)
        }.joined(separator: "&")
        return Data(text.utf8)
    }
}

/// One OAuth token request and its answer, shared by FCM and HMS.
enum OAuthExchange {
    private struct Answer: Decodable {
        let accessToken: String?
        let expiresIn: Double?

        enum CodingKeys: String, CodingKey {
            case accessToken = "access_token"
            case expiresIn = "expires_in"
        }
    }

    static func post(
        _ body: Data, to url: URL, http: HTTP2Lanes, timeout: TimeInterval, now: Date, provider: String, fix: String
    ) async throws -> AccessTokenCache.Token {
        let request = HTTP2Request(
            method: "POST", url: url, headers: [("content-type", "application/x-www-form-urlencoded")], body: body,
            timeout: timeout)
        let response: HTTP2Response
        do {
            response = try await http.send(request)
        } catch let error as HTTP2ClientError {
            throw ProviderAuthError(
                reason: "\(provider) OAuth token: \(error.reason)", temporary: error.kind != .invalidRequest)
        }
        let answer = try? JSONDecoder().decode(Answer.self, from: response.body)
        guard response.status == 200, let token = answer?.accessToken, !token.isEmpty else {
            let detail = String(decoding: response.body.prefix(300), as: UTF8.self)
            let temporary = response.status == 429 || response.status >= 500
            throw ProviderAuthError(
                reason: "\(provider) OAuth token: \(response.status) \(detail)" + (temporary ? "" : ": \(fix)"),
                temporary: temporary, retryAfter: RetryAfter.seconds(response.header("retry-after"), now: now))
        }
        return AccessTokenCache.Token(value: token, expiresAt: now.addingTimeInterval(answer?.expiresIn ?? 3600))
    }
}
