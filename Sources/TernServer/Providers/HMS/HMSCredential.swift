import Foundation
import TernCrypto

/// A project's HMS Push Kit credential: the app's id and its OAuth 2.0 client secret (from
/// AppGallery Connect).
///
/// ```json
/// {"app_id": "104123456", "client_secret": "…", "client_id": "104123456"}
/// ```
/// `client_id` defaults to `app_id`, which is what AppGallery Connect gives apps.
struct HMSCredential: Codable, Sendable, Equatable {
    var appId: String
    /// Never logged, never returned by the API.
    var clientSecret: String
    var clientId: String?

    enum CodingKeys: String, CodingKey {
        case appId = "app_id"
        case clientSecret = "client_secret"
        case clientId = "client_id"
    }

    /// The OAuth client id: `client_id`, or the app id.
    var oauthClientId: String { clientId ?? appId }

    /// - Throws: a reason naming the field to fix.
    func validate() throws(CredentialError) {
        try CredentialError.require(
            !appId.isEmpty && appId.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) },
            "app_id must be the app's id from AppGallery Connect (letters and digits)")
        try CredentialError.require(!clientSecret.isEmpty, "client_secret is required")
        if let clientId {
            try CredentialError.require(!clientId.isEmpty, "client_id, when given, must not be empty")
        }
    }

    /// A digest that changes whenever the credential does; safe to show.
    var fingerprint: String {
        "sha256:" + String(Digest.sha256Hex(appId + "\n" + oauthClientId + "\n" + clientSecret).prefix(16))
    }
}
