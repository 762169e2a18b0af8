import Foundation

/// A key that verifies tokens of one algorithm: a public key, or the HMAC secret.
///
/// ```swift
/// let key = try JWTVerificationKey.pem(publicKeyPEM, algorithm: .rs256)
/// let claims = try JWT.verify(token, key: key, audience: "tern")
/// ```
public struct JWTVerificationKey: Sendable {
    let material: JWTSigningKey.Material
    /// The only algorithm this key accepts in a token's header.
    public let algorithm: JWTAlgorithm

    init(material: JWTSigningKey.Material, algorithm: JWTAlgorithm) {
        self.material = material
        self.algorithm = algorithm
    }

    /// Reads a public key: `BEGIN PUBLIC KEY` (SubjectPublicKeyInfo), `BEGIN RSA PUBLIC KEY`
    /// (PKCS#1) or the public key of a `BEGIN CERTIFICATE`. A private key is refused, so that
    /// verification settings never hold a secret.
    /// - Throws: `JWTError` (kind `.key`) when the PEM cannot be read or the key does not suit `algorithm`.
    public static func pem(_ publicKeyPEM: String, algorithm: JWTAlgorithm) throws -> JWTVerificationKey {
        guard algorithm.isAsymmetric else {
            throw JWTError(.key, "HS256 takes an HMAC secret (JWTVerificationKey.hmac), not a PEM key")
        }
        let key = try KeyPEM.publicKey(publicKeyPEM)
        if let mismatch = key.mismatch(for: algorithm) { throw JWTError(.key, mismatch) }
        return JWTVerificationKey(material: .asymmetric(key), algorithm: algorithm)
    }

    /// The HMAC secret, for HS256.
    public static func hmac(_ secret: Data) -> JWTVerificationKey {
        JWTVerificationKey(material: .secret(secret), algorithm: .hs256)
    }
}
