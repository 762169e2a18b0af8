import COpenSSL
import Foundation

/// Signs and verifies bytes with an asymmetric key: RS256, PS256, ES256 (in DER; see
/// `ECDSARawSignature` for the wire form).
enum SignatureEngine {
    static func sign(_ message: Data, key: EVPKey, algorithm: JWTAlgorithm) throws(JWTError) -> Data {
        guard let context = EVP_MD_CTX_new() else { throw JWTError(.key, "OpenSSL is out of memory") }
        defer { EVP_MD_CTX_free(context) }
        var keyContext: OpaquePointer?
        guard EVP_DigestSignInit(context, &keyContext, EVP_sha256(), nil, key.pointer) == 1,
            configure(keyContext, for: algorithm)
        else {
            throw JWTError(.key, "cannot sign with \(key.familyName): \(OpenSSLFailure.drain())")
        }
        let signature = message.withUnsafeBytes { bytes -> Data? in
            let input = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self)
            var length = 0
            guard EVP_DigestSign(context, nil, &length, input, bytes.count) == 1 else { return nil }
            var signature = [UInt8](repeating: 0, count: length)
            guard EVP_DigestSign(context, &signature, &length, input, bytes.count) == 1 else { return nil }
            return Data(signature.prefix(length))
        }
        guard let signature else { throw JWTError(.key, "cannot sign: \(OpenSSLFailure.drain())") }
        return signature
    }

    /// True when `signature` (DER for ES256) is `message`'s signature by `key`.
    static func verify(_ signature: Data, of message: Data, key: EVPKey, algorithm: JWTAlgorithm) -> Bool {
        guard let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        var keyContext: OpaquePointer?
        guard EVP_DigestVerifyInit(context, &keyContext, EVP_sha256(), nil, key.pointer) == 1,
            configure(keyContext, for: algorithm)
        else {
            _ = OpenSSLFailure.drain()
            return false
        }
        let verified = signature.withUnsafeBytes { signatureBytes in
            message.withUnsafeBytes { messageBytes in
                EVP_DigestVerify(
                    context, signatureBytes.baseAddress?.assumingMemoryBound(to: UInt8.self), signatureBytes.count,
                    messageBytes.baseAddress?.assumingMemoryBound(to: UInt8.self), messageBytes.count)
            }
        }
        if verified != 1 { _ = OpenSSLFailure.drain() }
        return verified == 1
    }

    private static func configure(_ keyContext: OpaquePointer?, for algorithm: JWTAlgorithm) -> Bool {
        switch algorithm {
        case .rs256:
            return tern_evp_pkey_ctx_set_rsa_padding(keyContext, RSA_PKCS1_PADDING) > 0
        case .ps256:
            return tern_evp_pkey_ctx_set_rsa_padding(keyContext, RSA_PKCS1_PSS_PADDING) > 0
                && tern_evp_pkey_ctx_set_rsa_pss_saltlen(keyContext, 32) > 0
        case .es256, .hs256:
            return true
        }
    }
}
