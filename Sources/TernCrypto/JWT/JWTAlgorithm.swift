/// The JWS algorithms Tern signs and verifies (RFC 7518). `none` is deliberately absent.
public enum JWTAlgorithm: String, Sendable, CaseIterable {
    /// ECDSA on P-256 with SHA-256; the signature is raw R‖S, 64 bytes. APNs provider tokens use it.
    case es256 = "ES256"
    /// RSASSA-PKCS1-v1_5 with SHA-256. FCM's service-account tokens use it.
    case rs256 = "RS256"
    /// RSASSA-PSS with SHA-256, MGF1-SHA-256 and a 32-byte salt.
    case ps256 = "PS256"
    /// HMAC with SHA-256 and a shared secret.
    case hs256 = "HS256"

    var isAsymmetric: Bool { self != .hs256 }
}
