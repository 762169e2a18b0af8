import Foundation
import TernCrypto
import Testing

@Suite struct KeyAndEncodingTests {
    @Test func base64URLRoundTripsAndRefusesOtherAlphabets() {
        for length in 0..<40 {
            let data = Data((0..<length).map { UInt8(($0 * 37 + 250) % 256) })
            let text = Base64URL.encode(data)
            #expect(!text.contains("=") && !text.contains("+") && !text.contains("/"))
            #expect(Base64URL.decode(text) == data)
        }
        #expect(Base64URL.encode(Data([0xfb, 0xff])) == "-_8")
        #expect(Base64URL.decode("+/8") == nil)
        #expect(Base64URL.decode("-_8=") == nil)
        #expect(Base64URL.decode("A") == nil)
    }

    @Test func digestsMatchPublishedVectors() {
        let sha = Digest.sha256(Data("abc".utf8)).map { String(format: "%02x", $0) }.joined()
        #expect(sha == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(Digest.sha256Hex("abc") == sha)
        // In parts, as the idempotency fingerprint digests a route's name, a zero byte and a body.
        #expect(Digest.sha256Hex(parts: [Data("a".utf8), Data(), Data("bc".utf8)]) == sha)
        #expect(
            Digest.sha256Hex(parts: [])
                == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(Digest.randomHex(bytes: 5).count == 10)
        // RFC 4231, test case 2.
        let mac = Digest.hmacSHA256(key: Data("Jefe".utf8), data: Data("what do ya want for nothing?".utf8))
        #expect(
            mac.map { String(format: "%02x", $0) }.joined()
                == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    }

    @Test func privateKeyIsRefusedAsAVerificationKey() throws {
        let pem = try #require(try JWTSigningKey.generate(.es256).privateKeyPEM)
        #expect(
            throws: JWTError(
                .key, "this is a private key; give the public key instead (openssl pkey -in key.pem -pubout)")
        ) {
            try JWTVerificationKey.pem(pem, algorithm: .es256)
        }
    }

    @Test func keyOfTheWrongKindIsRefused() throws {
        let rsaPEM = try #require(try JWTSigningKey.generate(.rs256).privateKeyPEM)
        #expect(throws: JWTError(.key, "ES256 needs an EC P-256 key, not an RSA-2048 key")) {
            try JWTSigningKey.pem(rsaPEM, algorithm: .es256)
        }
        let cli = try OpenSSLCLI()
        try cli.run(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-384", "-out", "p384.pem"])
        #expect(throws: JWTError(.key, "ES256 needs an EC P-256 key, not an EC key on curve secp384r1")) {
            try JWTSigningKey.pem(try cli.readText("p384.pem"), algorithm: .es256)
        }
        try cli.run(["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:1024", "-out", "small.pem"])
        #expect(throws: JWTError(.key, "the RSA key has 1024 bits; RS256 needs at least 2048")) {
            try JWTSigningKey.pem(try cli.readText("small.pem"), algorithm: .rs256)
        }
        let ecKey = try JWTSigningKey.generate(.es256)
        #expect(throws: JWTError(.key, "RS256 needs an RSA key, not an EC P-256 key")) {
            try JWT.sign(claims: Data("{}".utf8), key: ecKey, algorithm: .rs256)
        }
    }

    @Test func unreadablePEMsSayWhy() throws {
        let garbage = "-----BEGIN PRIVATE KEY-----\nnot base64 at all\n-----END PRIVATE KEY-----\n"
        let error = #expect(throws: JWTError.self) { try JWTSigningKey.pem(garbage, algorithm: .es256) }
        #expect(error?.reason.hasPrefix("cannot read the private key PEM: ") == true)
        #expect(throws: JWTError(.key, "not a private key PEM (expected -----BEGIN PRIVATE KEY-----)")) {
            try JWTSigningKey.pem("hello", algorithm: .es256)
        }
        let publicError = #expect(throws: JWTError.self) { try JWTVerificationKey.pem("hello", algorithm: .rs256) }
        #expect(publicError?.reason.hasPrefix("cannot read the public key PEM: ") == true)
    }

    @Test func encryptedPrivateKeyIsRefusedWithoutPrompting() throws {
        let cli = try OpenSSLCLI()
        try cli.makeKey("plain.pem", kind: "EC")
        try cli.run(["pkcs8", "-topk8", "-in", "plain.pem", "-passout", "pass:secret", "-out", "encrypted.pem"])
        #expect(
            throws: JWTError(
                .key, "the private key PEM is encrypted; decrypt it first (openssl pkey -in key.pem -out plain.pem)")
        ) {
            try JWTSigningKey.pem(try cli.readText("encrypted.pem"), algorithm: .es256)
        }
    }
}
