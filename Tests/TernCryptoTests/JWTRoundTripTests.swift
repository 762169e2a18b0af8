import Foundation
import TernCrypto
import Testing

@Suite struct JWTRoundTripTests {
    @Test(arguments: JWTAlgorithm.allCases)
    func signedTokenVerifiesAndReturnsTheClaims(algorithm: JWTAlgorithm) throws {
        let key = try JWTSigningKey.generate(algorithm)
        let claims = Tokens.validClaims
        let token = try JWT.sign(claims: claims, key: key, algorithm: algorithm, header: ["kid": "key-1"])
        let verified = try JWT.verify(token, key: key.verificationKey(), audience: "tern")
        #expect(verified == claims)
        let (header, unverifiedClaims) = try JWT.decodeUnverified(token)
        #expect(header == ["alg": algorithm.rawValue, "typ": "JWT", "kid": "key-1"])
        #expect(unverifiedClaims == claims)
    }

    @Test(arguments: [JWTAlgorithm.es256, .rs256, .ps256])
    func exportedPEMsReadBackAndStillMatch(algorithm: JWTAlgorithm) throws {
        let original = try JWTSigningKey.generate(algorithm)
        let privatePEM = try #require(original.privateKeyPEM)
        let publicPEM = try #require(original.publicKeyPEM)
        #expect(privatePEM.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        #expect(publicPEM.hasPrefix("-----BEGIN PUBLIC KEY-----"))
        let reread = try JWTSigningKey.pem(privatePEM, algorithm: algorithm)
        let token = try JWT.sign(claims: Tokens.validClaims, key: reread, algorithm: algorithm)
        _ = try JWT.verify(token, key: try JWTVerificationKey.pem(publicPEM, algorithm: algorithm), audience: "tern")
    }

    @Test func es256SignatureIsRaw64Bytes() throws {
        let token = try JWT.sign(claims: Tokens.validClaims, key: try JWTSigningKey.generate(.es256), algorithm: .es256)
        let signature = try #require(Base64URL.decode(String(token.split(separator: ".")[2])))
        #expect(signature.count == 64)
    }

    @Test func hmacSecretHasNoPEM() {
        let key = JWTSigningKey.hmac(Data("secret".utf8))
        #expect(key.privateKeyPEM == nil)
        #expect(key.publicKeyPEM == nil)
        #expect(key.algorithm == .hs256)
    }

    @Test func audienceMayBeAnArray() throws {
        let key = JWTSigningKey.hmac(Data("s3cret".utf8))
        let token = try JWT.sign(claims: Tokens.claims(["aud": ["a", "tern"]]), key: key, algorithm: .hs256)
        _ = try JWT.verify(token, key: .hmac(Data("s3cret".utf8)), audience: "tern")
    }

    @Test func noAudienceExpectedMeansNoneChecked() throws {
        let key = JWTSigningKey.hmac(Data("s3cret".utf8))
        let token = try JWT.sign(claims: Tokens.claims(["sub": "x"]), key: key, algorithm: .hs256)
        #expect(try JWT.verify(token, key: .hmac(Data("s3cret".utf8)), audience: nil) == Tokens.claims(["sub": "x"]))
    }

    @Test func expiryWithinTheLeewayStillPasses() throws {
        let key = JWTSigningKey.hmac(Data("s3cret".utf8))
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let token = try JWT.sign(claims: Tokens.claims(["exp": 1_800_000_000 - 30]), key: key, algorithm: .hs256)
        _ = try JWT.verify(token, key: .hmac(Data("s3cret".utf8)), audience: nil, now: now, leeway: 60)
        #expect(throws: JWTError.self) {
            try JWT.verify(token, key: .hmac(Data("s3cret".utf8)), audience: nil, now: now, leeway: 10)
        }
    }

    @Test func claimsMustBeAJSONObject() throws {
        #expect(throws: JWTError(.malformed, "claims are not a JSON object")) {
            try JWT.sign(claims: Data("[1]".utf8), key: .hmac(Data("k".utf8)), algorithm: .hs256)
        }
    }
}
