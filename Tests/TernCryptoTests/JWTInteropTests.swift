import Foundation
import TernCrypto
import Testing

/// TernCrypto against the `openssl` command line, in both directions.
@Suite struct JWTInteropTests {
    let claims = #"{"aud":"tern","exp":4102444800,"sub":"user-1"}"#

    @Test(arguments: [false, true])
    func verifiesES256SignedByOpenSSL(traditionalKey: Bool) throws {
        let cli = try OpenSSLCLI()
        try cli.makeKey("ec.pem", kind: "EC", traditional: traditionalKey)
        let input = Tokens.signingInput(header: #"{"alg":"ES256","typ":"JWT"}"#, claims: claims)
        let der = try cli.sign(Data(input.utf8), keyFile: "ec.pem")
        let token = input + "." + Base64URL.encode(try cli.rawECDSA(fromDER: der))
        let key = try JWTVerificationKey.pem(try cli.readText("ec.pem.pub"), algorithm: .es256)
        #expect(try JWT.verify(token, key: key, audience: "tern") == Data(claims.utf8))
    }

    @Test(arguments: [JWTAlgorithm.rs256, .ps256])
    func verifiesRSASignedByOpenSSL(algorithm: JWTAlgorithm) throws {
        let cli = try OpenSSLCLI()
        try cli.makeKey("rsa.pem", kind: "RSA")
        let input = Tokens.signingInput(header: #"{"alg":"\#(algorithm.rawValue)"}"#, claims: claims)
        let signature = try cli.sign(Data(input.utf8), keyFile: "rsa.pem", pss: algorithm == .ps256)
        let token = input + "." + Base64URL.encode(signature)
        let key = try JWTVerificationKey.pem(try cli.readText("rsa.pem.pub"), algorithm: algorithm)
        #expect(try JWT.verify(token, key: key, audience: "tern") == Data(claims.utf8))
    }

    @Test func verifiesHS256MadeByOpenSSL() throws {
        let cli = try OpenSSLCLI()
        let secret = Data((0..<32).map { UInt8($0 * 7 % 256) })
        let input = Tokens.signingInput(header: #"{"alg":"HS256","typ":"JWT"}"#, claims: claims)
        let token = input + "." + Base64URL.encode(try cli.hmacSHA256(Data(input.utf8), secret: secret))
        #expect(try JWT.verify(token, key: .hmac(secret), audience: "tern") == Data(claims.utf8))
    }

    @Test func verifiesTheRFC7515HS256Example() throws {
        // RFC 7515, appendix A.1: the token and its JWK secret as published.
        let token =
            "eyJ0eXAiOiJKV1QiLA0KICJhbGciOiJIUzI1NiJ9"
            + ".eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ"
            + ".dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
        let secret = try #require(
            Base64URL.decode("AyM1SysPpbyDfgZld3umj1qzKObwVMkoqQ-EstJQLr_T-1qS0gZH75aKtMN3Yj0iPS4hcgUuTwjAzZr1Z9CAow"))
        let claims = try JWT.verify(
            token, key: .hmac(secret), audience: nil, now: Date(timeIntervalSince1970: 1_300_819_000))
        #expect(String(decoding: claims, as: UTF8.self).contains(#""iss":"joe""#))
        #expect(throws: JWTError(.expired, "token expired at 2011-03-22T18:43:00Z")) {
            try JWT.verify(token, key: .hmac(secret), audience: nil, now: Date(timeIntervalSince1970: 1_300_819_500))
        }
    }

    @Test(arguments: [JWTAlgorithm.es256, .rs256, .ps256])
    func openSSLVerifiesTernSignatures(algorithm: JWTAlgorithm) throws {
        let cli = try OpenSSLCLI()
        let key = try JWTSigningKey.generate(algorithm)
        try cli.write("public.pem", Data(try #require(key.publicKeyPEM).utf8))
        let token = try JWT.sign(claims: Data(claims.utf8), key: key, algorithm: algorithm)
        let parts = token.split(separator: ".")
        let input = Data((parts[0] + "." + parts[1]).utf8)
        var signature = try #require(Base64URL.decode(String(parts[2])))
        if algorithm == .es256 { signature = derECDSA(fromRaw: signature) }
        #expect(try cli.verify(input, signature: signature, publicKeyFile: "public.pem", pss: algorithm == .ps256))
        var tampered = input
        tampered[tampered.count - 1] ^= 1
        #expect(
            !(try cli.verify(tampered, signature: signature, publicKeyFile: "public.pem", pss: algorithm == .ps256)))
    }

    @Test func signsWithAnAPNsStyleP8Key() throws {
        // APNs .p8 files are PKCS#8 EC P-256 keys: what `genpkey` writes.
        let cli = try OpenSSLCLI()
        try cli.makeKey("AuthKey_ABC123DEFG.p8", kind: "EC")
        let key = try JWTSigningKey.pem(try cli.readText("AuthKey_ABC123DEFG.p8"), algorithm: .es256)
        let token = try JWT.sign(
            claims: Data(#"{"iss":"TEAM123456","iat":1700000000}"#.utf8), key: key, algorithm: .es256,
            header: ["kid": "ABC123DEFG"])
        let parts = token.split(separator: ".")
        let der = derECDSA(fromRaw: try #require(Base64URL.decode(String(parts[2]))))
        #expect(
            try cli.verify(
                Data((parts[0] + "." + parts[1]).utf8), signature: der, publicKeyFile: "AuthKey_ABC123DEFG.p8.pub"))
        #expect(try JWT.decodeUnverified(token).header["kid"] == "ABC123DEFG")
    }

    @Test func readsTraditionalRSAPrivateKeysPKCS1PublicKeysAndCertificates() throws {
        let cli = try OpenSSLCLI()
        try cli.makeKey("rsa.pem", kind: "RSA", traditional: true)
        #expect(try cli.readText("rsa.pem").contains("BEGIN RSA PRIVATE KEY"))
        let key = try JWTSigningKey.pem(try cli.readText("rsa.pem"), algorithm: .rs256)
        try cli.run(["rsa", "-in", "rsa.pem", "-RSAPublicKey_out", "-out", "pkcs1.pub"])
        try cli.run([
            "req", "-x509", "-new", "-key", "rsa.pem", "-subj", "/CN=tern-test", "-days", "1", "-out", "cert.pem",
        ])
        let token = try JWT.sign(claims: Data(claims.utf8), key: key, algorithm: .rs256)
        for file in ["pkcs1.pub", "cert.pem"] {
            let verification = try JWTVerificationKey.pem(try cli.readText(file), algorithm: .rs256)
            _ = try JWT.verify(token, key: verification, audience: "tern")
        }
    }
}
