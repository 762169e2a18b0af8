import COpenSSL
import Foundation

/// Reads and writes keys as PEM, and makes new ones.
enum KeyPEM {
    /// A private key from PKCS#8 (`BEGIN PRIVATE KEY`, as APNs .p8 files) or traditional
    /// (`BEGIN EC PRIVATE KEY`, `BEGIN RSA PRIVATE KEY`) PEM.
    static func privateKey(_ pem: String) throws(JWTError) -> EVPKey {
        if pem.contains("ENCRYPTED") {
            throw JWTError(
                .key, "the private key PEM is encrypted; decrypt it first (openssl pkey -in key.pem -out plain.pem)")
        }
        guard pem.contains("PRIVATE KEY-----") else {
            throw JWTError(.key, "not a private key PEM (expected -----BEGIN PRIVATE KEY-----)")
        }
        // The callback refuses passphrases: OpenSSL's default would prompt on the terminal.
        let key = MemoryBIO.reading(Data(pem.utf8)) { bio in
            PEM_read_bio_PrivateKey(bio, nil, { _, _, _, _ in 0 }, nil)
        }
        guard let key = key.flatMap({ $0 }) else {
            throw JWTError(.key, "cannot read the private key PEM: \(OpenSSLFailure.drain())")
        }
        return EVPKey(taking: key)
    }

    /// A public key from `BEGIN PUBLIC KEY` (SubjectPublicKeyInfo), `BEGIN RSA PUBLIC KEY`
    /// (PKCS#1) or a `BEGIN CERTIFICATE` PEM.
    static func publicKey(_ pem: String) throws(JWTError) -> EVPKey {
        if pem.contains("PRIVATE KEY-----") {
            throw JWTError(
                .key, "this is a private key; give the public key instead (openssl pkey -in key.pem -pubout)")
        }
        if pem.contains("BEGIN CERTIFICATE") {
            let key = MemoryBIO.reading(Data(pem.utf8)) { bio -> OpaquePointer? in
                guard let certificate = PEM_read_bio_X509(bio, nil, { _, _, _, _ in 0 }, nil) else { return nil }
                defer { X509_free(certificate) }
                return X509_get_pubkey(certificate)
            }
            guard let key = key.flatMap({ $0 }) else {
                throw JWTError(.key, "cannot read the certificate PEM: \(OpenSSLFailure.drain())")
            }
            return EVPKey(taking: key)
        }
        var key: OpaquePointer?
        let decoded = Data(pem.utf8).withUnsafeBytes { bytes -> Bool in
            guard
                let decoder = OSSL_DECODER_CTX_new_for_pkey(
                    &key, "PEM", nil, nil, tern_evp_pkey_public_key_selection(), nil, nil)
            else { return false }
            defer { OSSL_DECODER_CTX_free(decoder) }
            var pointer = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self)
            var length = bytes.count
            return OSSL_DECODER_from_data(decoder, &pointer, &length) == 1
        }
        guard decoded, let key else {
            throw JWTError(.key, "cannot read the public key PEM: \(OpenSSLFailure.drain())")
        }
        return EVPKey(taking: key)
    }

    /// PKCS#8 `BEGIN PRIVATE KEY` PEM.
    static func privatePEM(_ key: EVPKey) -> String? {
        MemoryBIO.writing { bio in
            PEM_write_bio_PKCS8PrivateKey(bio, key.pointer, nil, nil, 0, nil, nil) == 1
        }
    }

    /// SubjectPublicKeyInfo `BEGIN PUBLIC KEY` PEM.
    static func publicPEM(_ key: EVPKey) -> String? {
        MemoryBIO.writing { bio in PEM_write_bio_PUBKEY(bio, key.pointer) == 1 }
    }

    /// A new EC P-256 or RSA-2048 key.
    static func generate(_ algorithm: JWTAlgorithm) throws(JWTError) -> EVPKey {
        let isEC = algorithm == .es256
        guard let context = EVP_PKEY_CTX_new_from_name(nil, isEC ? "EC" : "RSA", nil) else {
            throw JWTError(.key, "cannot make a key: \(OpenSSLFailure.drain())")
        }
        defer { EVP_PKEY_CTX_free(context) }
        var key: OpaquePointer?
        guard EVP_PKEY_keygen_init(context) == 1,
            isEC
                ? EVP_PKEY_CTX_set_group_name(context, "P-256") == 1
                : EVP_PKEY_CTX_set_rsa_keygen_bits(context, 2048) == 1,
            EVP_PKEY_generate(context, &key) == 1, let key
        else {
            throw JWTError(.key, "cannot make a \(algorithm.rawValue) key: \(OpenSSLFailure.drain())")
        }
        return EVPKey(taking: key)
    }
}
