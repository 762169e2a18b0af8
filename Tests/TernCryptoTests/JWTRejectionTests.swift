import Foundation
import TernCrypto
import Testing

/// Every token the verifier must refuse, with the reason it gives.
@Suite struct JWTRejectionTests {
    let secret = Data("a-32-byte-secret-for-the-tests!!".utf8)

    func hs256(_ claims: [String: Any]) throws -> String {
        try JWT.sign(claims: Tokens.claims(claims), key: .hmac(secret), algorithm: .hs256)
    }

    func rejection(_ token: String, key: JWTVerificationKey, audience: String? = "tern", now: Date = Date())
        -> JWTError?
    {
        do {
            _ = try JWT.verify(token, key: key, audience: audience, now: now)
            return nil
        } catch {
            return error
        }
    }

    @Test func algorithmNoneIsRefused() throws {
        let token = Tokens.signingInput(header: #"{"alg":"none","typ":"JWT"}"#, claims: #"{"aud":"tern"}"#) + "."
        #expect(rejection(token, key: .hmac(secret)) == JWTError(.algorithm, "algorithm none is not accepted"))
        let shouted = Tokens.signingInput(header: #"{"alg":"NONE"}"#, claims: #"{"aud":"tern"}"#) + ".c2ln"
        #expect(rejection(shouted, key: .hmac(secret))?.reason == "algorithm none is not accepted")
    }

    @Test func unknownAlgorithmIsRefused() throws {
        let token = Tokens.signingInput(header: #"{"alg":"HS512"}"#, claims: "{}") + ".c2ln"
        #expect(
            rejection(token, key: .hmac(secret))?.reason
                == "algorithm HS512 is not supported (ES256, RS256, PS256, HS256 are)")
    }

    @Test func tokenSignedByAnotherKeyIsRefused() throws {
        let signer = try JWTSigningKey.generate(.es256)
        let other = try JWTSigningKey.generate(.es256)
        let token = try JWT.sign(claims: Tokens.validClaims, key: signer, algorithm: .es256)
        #expect(rejection(token, key: other.verificationKey()) == JWTError(.signature, "signature does not verify"))
        let hmacToken = try hs256(["aud": "tern"])
        #expect(rejection(hmacToken, key: .hmac(Data("another".utf8)))?.reason == "signature does not verify")
    }

    @Test func hs256TokenAgainstAPublicKeyIsRefused() throws {
        // The classic confusion: sign HS256 with the public key's PEM text as the HMAC secret.
        let rsa = try JWTSigningKey.generate(.rs256)
        let publicPEM = try #require(rsa.publicKeyPEM)
        let forged = try JWT.sign(claims: Tokens.validClaims, key: .hmac(Data(publicPEM.utf8)), algorithm: .hs256)
        let key = try JWTVerificationKey.pem(publicPEM, algorithm: .rs256)
        #expect(
            rejection(forged, key: key)
                == JWTError(.algorithm, "algorithm HS256 does not match the key, which is for RS256"))
    }

    @Test func tokenOfAnotherAsymmetricAlgorithmIsRefused() throws {
        let rsa = try JWTSigningKey.generate(.rs256)
        let token = try JWT.sign(claims: Tokens.validClaims, key: rsa, algorithm: .ps256)
        #expect(rejection(token, key: rsa.verificationKey(for: .rs256))?.kind == .algorithm)
        _ = try JWT.verify(token, key: rsa.verificationKey(for: .ps256), audience: "tern")
    }

    @Test func expiredTokenIsRefusedWithItsExpiry() throws {
        let token = try hs256(["aud": "tern", "exp": 1_700_000_000])
        let now = Date(timeIntervalSince1970: 1_700_000_000 + 3600)
        #expect(
            rejection(token, key: .hmac(secret), now: now)
                == JWTError(.expired, "token expired at 2023-11-14T22:13:20Z"))
    }

    @Test func tokenNotYetValidIsRefused() throws {
        let token = try hs256(["aud": "tern", "nbf": 1_700_000_000])
        let now = Date(timeIntervalSince1970: 1_700_000_000 - 3600)
        #expect(
            rejection(token, key: .hmac(secret), now: now)
                == JWTError(.notYetValid, "token is not yet valid (nbf 2023-11-14T22:13:20Z)"))
    }

    @Test func wrongAudienceIsRefused() throws {
        #expect(
            rejection(try hs256(["aud": "x"]), key: .hmac(secret), audience: "y")
                == JWTError(.audience, "audience \"x\" is not \"y\""))
        #expect(
            rejection(try hs256(["aud": ["a", "b"]]), key: .hmac(secret), audience: "y")?.reason
                == "audience [\"a\", \"b\"] does not include \"y\"")
        #expect(
            rejection(try hs256(["sub": "1"]), key: .hmac(secret), audience: "y")?.reason
                == "token has no audience; expected \"y\"")
    }

    @Test func tamperedPayloadIsRefused() throws {
        let key = try JWTSigningKey.generate(.rs256)
        let token = try JWT.sign(claims: Tokens.claims(["aud": "tern", "role": "user"]), key: key, algorithm: .rs256)
        let parts = token.split(separator: ".").map(String.init)
        let forgedClaims = Base64URL.encode(Tokens.claims(["aud": "tern", "role": "admin"]))
        let forged = [parts[0], forgedClaims, parts[2]].joined(separator: ".")
        #expect(rejection(forged, key: key.verificationKey()) == JWTError(.signature, "signature does not verify"))
    }

    @Test(arguments: [
        ("", "malformed token: expected 3 dot-separated parts, found 1"),
        ("a.b", "malformed token: expected 3 dot-separated parts, found 2"),
        ("a.b.c.d", "malformed token: expected 3 dot-separated parts, found 4"),
        ("!!.e30.c2ln", "malformed token: the header is not base64url"),
        ("W10.e30.c2ln", "malformed token: the header is not a JSON object"),
        ("e30.e30.c2ln", "malformed token: the header has no \"alg\""),
        ("eyJhbGciOiJIUzI1NiJ9.e30=.c2ln", "malformed token: the payload is not base64url"),
        ("eyJhbGciOiJIUzI1NiJ9.bnVsbA.c2ln", "malformed token: the payload is not a JSON object"),
        ("eyJhbGciOiJIUzI1NiJ9.e30.c2ln+", "malformed token: the signature is not base64url"),
    ])
    func malformedTokensSayWhatIsWrong(token: String, reason: String) {
        #expect(rejection(token, key: .hmac(secret))?.reason == reason)
    }

    @Test func claimOfTheWrongTypeIsMalformed() throws {
        let key = JWTVerificationKey.hmac(secret)
        #expect(
            rejection(try hs256(["aud": "tern", "exp": "tomorrow"]), key: key)?.reason
                == "malformed token: exp is not a number")
        #expect(
            rejection(try hs256(["aud": "tern", "nbf": true]), key: key)?.reason
                == "malformed token: nbf is not a number")
        #expect(
            rejection(try hs256(["aud": 7]), key: key)?.reason
                == "malformed token: aud is neither a string nor an array of strings")
    }

    @Test func es256SignatureOfTheWrongLengthIsRefused() throws {
        let key = try JWTSigningKey.generate(.es256)
        let token = try JWT.sign(claims: Tokens.validClaims, key: key, algorithm: .es256)
        let truncated = String(token.dropLast(4))
        #expect(rejection(truncated, key: key.verificationKey())?.reason == "signature does not verify")
    }

    @Test func emptyHMACSecretNeverVerifies() throws {
        #expect(throws: JWTError(.key, "the HMAC secret is empty")) {
            try JWT.sign(claims: Data("{}".utf8), key: .hmac(Data()), algorithm: .hs256)
        }
        let token =
            Tokens.signingInput(header: #"{"alg":"HS256"}"#, claims: "{}") + "."
            + Base64URL.encode(
                Digest.hmacSHA256(
                    key: Data(), data: Data(Tokens.signingInput(header: #"{"alg":"HS256"}"#, claims: "{}").utf8)))
        #expect(rejection(token, key: .hmac(Data()), audience: nil)?.reason == "signature does not verify")
    }
}
