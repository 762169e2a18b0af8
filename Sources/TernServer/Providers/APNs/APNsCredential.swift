import Foundation
import TernCrypto

/// A project's APNs token-based credential: the team, the key's id and the .p8 key itself.
///
/// ```json
/// {"team_id": "ABCDE12345", "key_id": "KEY1234567",
///  "private_key": "-----BEGIN PRIVATE KEY-----\n…\n-----END PRIVATE KEY-----\n",
///  "topic": "com.example.app"}
/// ```
/// `topic` is the app's bundle id, used when a push does not name its own.
public struct APNsCredential: Codable, Sendable, Equatable {
    var teamId: String
    var keyId: String
    /// The .p8 file's contents (PKCS#8 PEM, EC P-256). Never logged, never returned by the API.
    var privateKey: String
    var topic: String?

    /// A token-based APNs credential.
    ///
    /// - Parameters:
    ///   - teamId: The Apple developer team's id (10 characters).
    ///   - keyId: The id of the `.p8` key (10 characters).
    ///   - privateKey: The `.p8` file's PEM text (an ES256 key).
    ///   - topic: The app's bundle id, used when a message names none; nil to require it per message.
    public init(teamId: String, keyId: String, privateKey: String, topic: String? = nil) {
        self.teamId = teamId
        self.keyId = keyId
        self.privateKey = privateKey
        self.topic = topic
    }

    enum CodingKeys: String, CodingKey {
        case topic
        case teamId = "team_id"
        case keyId = "key_id"
        case privateKey = "private_key"
    }

    /// Checks the fields and reads the key.
    /// - Throws: a reason naming the field to fix.
    func signingKey() throws(CredentialError) -> JWTSigningKey {
        try CredentialError.require(Self.isAppleID(teamId), "team_id must be the 10-character Apple team id")
        try CredentialError.require(Self.isAppleID(keyId), "key_id must be the 10-character id of the .p8 key")
        if let topic {
            try CredentialError.require(
                !topic.isEmpty && topic.count <= 255 && !topic.contains(where: { $0.isWhitespace || $0 == "/" }),
                "topic must be the app's bundle id, e.g. com.example.app")
        }
        do {
            return try JWTSigningKey.pem(privateKey, algorithm: .es256)
        } catch {
            throw CredentialError("private_key must be the .p8 file's contents (an EC P-256 PEM key): \(error)")
        }
    }

    /// A digest that changes whenever the credential does; safe to show.
    var fingerprint: String {
        "sha256:" + String(Digest.sha256Hex(teamId + "\n" + keyId + "\n" + privateKey).prefix(16))
    }

    static func isAppleID(_ text: String) -> Bool {
        text.count == 10 && text.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) }
    }
}

/// A credential that cannot be used, with the field to fix.
struct CredentialError: Error, Sendable, Equatable, CustomStringConvertible {
    let reason: String

    init(_ reason: String) {
        self.reason = reason
    }

    var description: String { reason }

    static func require(_ condition: Bool, _ reason: @autoclosure () -> String) throws(CredentialError) {
        if !condition { throw CredentialError(reason()) }
    }
}
