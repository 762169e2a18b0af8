import TernCrypto

enum JWTSigningKeyFactory {
    /// A new EC P-256 key as PKCS#8 PEM (the shape of an APNs .p8 file).
    static func es256PEM() throws -> String {
        try JWTSigningKey.generate(.es256).privateKeyPEM ?? ""
    }
}
