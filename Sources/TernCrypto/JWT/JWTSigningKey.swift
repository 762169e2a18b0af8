import COpenSSL
import Foundation

/// A key that signs tokens: a private key (EC P-256 or RSA) or an HMAC secret.
///
/// ```swift
/// let key = try JWTSigningKey.pem(p8FileContents, algorithm: .es256)   // an APNs .p8 key
/// let token = try JWT.sign(claims: claims, key: key, algorithm: .es256, header: ["kid": keyID])
/// ```
public struct JWTSigningKey: Sendable {
    enum Material: Sendable {
        case asymmetric(EVPKey)
        case secret(Data)
    }

    let material: Material
    /// The algorithm the key was read or made for (`.hs256` for a secret).
    public let algorithm: JWTAlgorithm

    /// Reads a private key: PKCS#8 (`BEGIN PRIVATE KEY`; APNs .p8 files are PKCS#8 EC P-256) or
    /// traditional (`BEGIN EC PRIVATE KEY`, `BEGIN RSA PRIVATE KEY`) PEM.
    /// - Throws: `JWTError` (kind `.key`) when the PEM cannot be read or the key does not suit `algorithm`.
    public static func pem(_ pem: String, algorithm: JWTAlgorithm) throws -> JWTSigningKey {
        guard algorithm.isAsymmetric else {
            throw JWTError(.key, "HS256 takes an HMAC secret (JWTSigningKey.hmac), not a PEM key")
        }
        let key = try KeyPEM.privateKey(pem)
        if let mismatch = key.mismatch(for: algorithm) { throw JWTError(.key, mismatch) }
        return JWTSigningKey(material: .asymmetric(key), algorithm: algorithm)
    }

    /// An HMAC secret, for HS256.
    public static func hmac(_ secret: Data) -> JWTSigningKey {
        JWTSigningKey(material: .secret(secret), algorithm: .hs256)
    }

    /// A new key: EC P-256 for ES256, RSA-2048 for RS256 and PS256, 32 random bytes for HS256.
    public static func generate(_ algorithm: JWTAlgorithm) throws -> JWTSigningKey {
        guard algorithm.isAsymmetric else {
            var secret = [UInt8](repeating: 0, count: 32)
            guard RAND_bytes(&secret, 32) == 1 else {
                throw JWTError(.key, "cannot make a secret: \(OpenSSLFailure.drain())")
            }
            return .hmac(Data(secret))
        }
        return JWTSigningKey(material: .asymmetric(try KeyPEM.generate(algorithm)), algorithm: algorithm)
    }

    /// The private key as PKCS#8 PEM; nil for an HMAC secret.
    public var privateKeyPEM: String? {
        guard case .asymmetric(let key) = material else { return nil }
        return KeyPEM.privatePEM(key)
    }

    /// The public key as SubjectPublicKeyInfo PEM (`BEGIN PUBLIC KEY`); nil for an HMAC secret.
    public var publicKeyPEM: String? {
        guard case .asymmetric(let key) = material else { return nil }
        return KeyPEM.publicPEM(key)
    }

    /// The key that verifies this key's tokens for `algorithm` (by default the key's own).
    public func verificationKey(for algorithm: JWTAlgorithm? = nil) -> JWTVerificationKey {
        switch material {
        case .asymmetric(let key):
            return JWTVerificationKey(material: .asymmetric(key), algorithm: algorithm ?? self.algorithm)
        case .secret(let secret): return .hmac(secret)
        }
    }
}
