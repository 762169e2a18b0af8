import Foundation
import TernCrypto
import Testing

/// JWTs against a real server: `crit` (RFC 7515 §4.1.11), and the attacks that already fail,
/// kept so they keep failing.
@Suite struct JWTTests {
    func refused(_ server: SecurityServer, _ token: String) async throws -> String {
        let reply = try await server.sdk("push/subscribe", subscription("jwt-device"), jwt: token)
        #expect(reply.status == 401, "\(reply.text)")
        return reply.json?["error_text"] as? String ?? ""
    }

    @Test func aCriticalHeaderTernDoesNotUnderstandIsRefused() async throws {
        let server = try await SecurityServer.start()
        defer { Task { await server.stop() } }
        let signer = try await server.hs256Signer(server.first)
        let claims = signer.claims(email: "ada@example.com")
        let accepted = try await server.sdk(
            "push/subscribe", subscription("jwt-device"), jwt: try signer.token(claims: claims))
        #expect(accepted.status == 200, "\(accepted.text)")
        let critical = try signer.token(
            header: ["alg": "HS256", "kid": signer.kid, "crit": ["exp-v2"], "exp-v2": 1], claims: claims)
        #expect(try await refused(server, critical).contains("crit"))
        let empty = try signer.token(header: ["alg": "HS256", "kid": signer.kid, "crit": []], claims: claims)
        #expect(try await refused(server, empty).contains("crit"))
        let notAList = try signer.token(header: ["alg": "HS256", "kid": signer.kid, "crit": "b64"], claims: claims)
        #expect(try await refused(server, notAList).contains("crit"))
    }

    @Test func theUsualAttacksAreRefused() async throws {
        let server = try await SecurityServer.start()
        defer { Task { await server.stop() } }
        let signer = try await server.hs256Signer(server.first)
        let other = try await server.hs256Signer(try await server.createTenant("b"), kid: "b1")
        let claims = signer.claims(email: "ada@example.com")
        let good = try signer.token(claims: claims)

        // alg none, with and without a signature.
        let noneInput =
            Base64URL.encode(Data(#"{"alg":"none","kid":"k1"}"#.utf8)) + "."
            + Base64URL.encode(try JSONSerialization.data(withJSONObject: claims))
        #expect(try await refused(server, noneInput + ".").contains("none"))
        #expect(try await refused(server, noneInput + "." + good.split(separator: ".")[2]).contains("none"))
        // Key confusion: an ES256 key registered, a token signed HS256 with its public PEM as the secret.
        let ecKey = try JWTSigningKey.generate(.es256)
        let pem = try #require(ecKey.publicKeyPEM)
        let registered = try await server.admin(
            "POST", "/projects/\(server.first.projectId)/jwt-keys",
            json: ["kid": "ec", "algorithm": "ES256", "key": pem])
        try #require(registered.status == 201, "\(registered.text)")
        let confused = Signer(
            secret: Data(pem.utf8), kid: "ec", audience: signer.audience, dbId: signer.dbId,
            resourceId: signer.resourceId)
        #expect(try await refused(server, try confused.token(claims: claims)).contains("algorithm"))
        // Expired, wrong audience, another project's kid.
        let expired = try signer.token(claims: signer.claims(email: "a@x", expires: Date().addingTimeInterval(-3600)))
        #expect(try await refused(server, expired).contains("expired"))
        var wrongAudience = claims
        wrongAudience["aud"] = other.audience
        _ = try await refused(server, try signer.token(claims: wrongAudience))
        let otherKid = try other.token(
            header: ["alg": "HS256", "kid": other.kid], claims: claims)  // A's audience, B's key
        _ = try await refused(server, otherKid)
        // Truncations.
        let truncations: [String] = [
            String(good.dropLast()), String(good.prefix(good.count / 2)),
            good.split(separator: ".").prefix(2).joined(separator: "."),
        ]
        for cut in truncations {
            _ = try await refused(server, cut)
        }
    }
}
