import Foundation
import TernCrypto

/// Builds a compact token by hand around a signature made elsewhere.
enum Tokens {
    static func signingInput(header: String, claims: String) -> String {
        Base64URL.encode(Data(header.utf8)) + "." + Base64URL.encode(Data(claims.utf8))
    }

    static func claims(_ fields: [String: Any]) -> Data {
        try! JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys])
    }

    /// `exp` an hour ahead of now, audience "tern".
    static var validClaims: Data {
        claims(["sub": "user-1", "aud": "tern", "exp": Int(Date().timeIntervalSince1970) + 3600])
    }
}
