import Foundation
import TernCrypto

/// A Firebase service account, as the JSON file Google hands out (only these fields are read).
///
/// ```json
/// {"type": "service_account", "project_id": "tern-demo", "private_key_id": "8f2…",
///  "private_key": "-----BEGIN PRIVATE KEY-----\n…", "client_email": "push@tern-demo.iam.gserviceaccount.com",
///  "token_uri": "https://oauth2.googleapis.com/token"}
/// ```
struct FCMServiceAccount: Codable, Sendable, Equatable {
    var projectId: String
    var privateKeyId: String
    /// RSA private key (PEM). Never logged, never returned by the API.
    var privateKey: String
    var clientEmail: String
    /// Google's OAuth token endpoint; the default when absent.
    var tokenURI: String?

    enum CodingKeys: String, CodingKey {
        case projectId = "project_id"
        case privateKeyId = "private_key_id"
        case privateKey = "private_key"
        case clientEmail = "client_email"
        case tokenURI = "token_uri"
    }

    static let defaultTokenURI = URL(string: "https://oauth2.googleapis.com/token")!

    /// Checks the fields and reads the key.
    /// - Throws: a reason naming the field to fix.
    func signingKey() throws(CredentialError) -> JWTSigningKey {
        try CredentialError.require(
            !projectId.isEmpty && projectId.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") },
            "project_id must be the Firebase project's id (letters, digits, dashes)")
        try CredentialError.require(!privateKeyId.isEmpty, "private_key_id is required (it goes in the JWT's kid)")
        try CredentialError.require(
            clientEmail.contains("@"), "client_email must be the service account's e-mail address")
        if let tokenURI {
            try CredentialError.require(
                URL(string: tokenURI)?.scheme == "https", "token_uri must be an https URL")
        }
        do {
            return try JWTSigningKey.pem(privateKey, algorithm: .rs256)
        } catch {
            throw CredentialError("private_key must be the service account's RSA key (PEM): \(error)")
        }
    }

    /// A digest that changes whenever the credential does; safe to show.
    var fingerprint: String {
        "sha256:" + String(Digest.sha256Hex(projectId + "\n" + clientEmail + "\n" + privateKey).prefix(16))
    }
}
