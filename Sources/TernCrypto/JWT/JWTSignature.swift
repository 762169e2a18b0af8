import Foundation

/// The signature step of each algorithm, in its wire form (raw R‖S for ES256).
enum JWTSignature {
    static func sign(_ input: Data, key: JWTSigningKey, algorithm: JWTAlgorithm) throws(JWTError) -> Data {
        switch (key.material, algorithm) {
        case (.secret(let secret), .hs256):
            guard !secret.isEmpty else { throw JWTError(.key, "the HMAC secret is empty") }
            return Digest.hmacSHA256(key: secret, data: input)
        case (.secret, _):
            throw JWTError(.key, "\(algorithm.rawValue) needs a private key, not an HMAC secret")
        case (.asymmetric(let evp), _):
            if let mismatch = evp.mismatch(for: algorithm) { throw JWTError(.key, mismatch) }
            let signature = try SignatureEngine.sign(input, key: evp, algorithm: algorithm)
            guard algorithm == .es256 else { return signature }
            guard let raw = ECDSARawSignature.raw(fromDER: signature) else {
                throw JWTError(.key, "OpenSSL made an ECDSA signature that is not DER")
            }
            return raw
        }
    }

    static func verify(_ signature: Data, of input: Data, key: JWTVerificationKey, algorithm: JWTAlgorithm) -> Bool {
        switch (key.material, algorithm) {
        case (.secret(let secret), .hs256):
            return !secret.isEmpty && Digest.constantTimeEqual(Digest.hmacSHA256(key: secret, data: input), signature)
        case (.secret, _), (.asymmetric, .hs256):
            return false
        case (.asymmetric(let evp), .es256):
            guard evp.mismatch(for: .es256) == nil, let der = ECDSARawSignature.der(fromRaw: signature) else {
                return false
            }
            return SignatureEngine.verify(der, of: input, key: evp, algorithm: .es256)
        case (.asymmetric(let evp), _):
            guard evp.mismatch(for: algorithm) == nil else { return false }
            return SignatureEngine.verify(signature, of: input, key: evp, algorithm: algorithm)
        }
    }
}
