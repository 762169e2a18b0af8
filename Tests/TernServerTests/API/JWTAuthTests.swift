import Foundation
import TernCrypto
import TernProtocol
import TernServer
import Testing

/// JWT authentication: keys picked by kid, audience, expiry, the matching claim; and rTokens.
@Suite struct JWTAuthTests {
    static func databaseId(_ server: InProcessServer) async throws -> Int {
        let databases = try await server.admin("GET", "/projects/\(server.bootstrap.projectId)/databases")
        return try #require(databases.array.first?["id"] as? Int)
    }

    @Test(arguments: [JWTAlgorithm.es256, .rs256, .ps256, .hs256])
    func tokenSignedWithTheProjectsKeyIsAccepted(algorithm: JWTAlgorithm) async throws {
        let server = try await InProcessServer()
        defer { Task { await server.finish() } }
        let signer = try await TestSigner.register(on: server, algorithm: algorithm)
        let token = try signer.token(["db_id": try await Self.databaseId(server), "email": "ada@example.com"])
        let reply = try await server.sdk(.pushSubscribe, InProcessServer.subscription(), jwt: token)
        #expect(reply.status == 200, "\(reply.errorText)")
        let profileId = try #require(reply.profile?.id)
        let view = try await server.admin("GET", "/profiles/\(profileId)")
        #expect((view.json["fields"] as? [String: Any])?["_email"] as? String == "ada@example.com")
    }

    @Test func expiredTokenIsRejectedWithTheTime() async throws {
        let server = try await InProcessServer()
        defer { Task { await server.finish() } }
        let signer = try await TestSigner.register(on: server)
        let token = try signer.token(
            ["db_id": try await Self.databaseId(server), "email": "a@b"],
            expires: Date(timeIntervalSince1970: 1_700_000_000))
        let reply = try await server.sdk(.pushSubscribe, InProcessServer.subscription(), jwt: token)
        #expect(reply.status == 401)
        #expect(reply.errorText.hasPrefix("JWT rejected: token expired at 2023-11-14"))
    }

    @Test func tokenWithoutExpiryIsRejected() async throws {
        let server = try await InProcessServer()
        defer { Task { await server.finish() } }
        let signer = try await TestSigner.register(on: server)
        let token = try signer.token(["db_id": try await Self.databaseId(server), "email": "a@b"], expires: nil)
        let reply = try await server.sdk(.pushSubscribe, InProcessServer.subscription(), jwt: token)
        #expect(reply.status == 401)
        #expect(reply.errorText.contains("exp"))
    }

    @Test func notYetValidTokenIsRejected() async throws {
        let server = try await InProcessServer()
        defer { Task { await server.finish() } }
        let signer = try await TestSigner.register(on: server)
        let token = try signer.token(
            ["db_id": try await Self.databaseId(server), "email": "a@b"], notBefore: Date().addingTimeInterval(3600))
        let reply = try await server.sdk(.pushSubscribe, InProcessServer.subscription(), jwt: token)
        #expect(reply.status == 401)
        #expect(reply.errorText.hasPrefix("JWT rejected:"))
    }

    @Test func wrongAudienceIsRejected() async throws {
        let server = try await InProcessServer()
        defer { Task { await server.finish() } }
        let signer = try await TestSigner.register(on: server)
        let token = try signer.token(
            ["db_id": try await Self.databaseId(server), "email": "a@b"], audience: "someone-else")
        let reply = try await server.sdk(.pushSubscribe, InProcessServer.subscription(), jwt: token)
        #expect(reply.status == 401)
        #expect(reply.errorText.contains("audience"))
    }

    @Test func tokenSignedWithAnotherKeyIsRejected() async throws {
        let server = try await InProcessServer()
        defer { Task { await server.finish() } }
        _ = try await TestSigner.register(on: server)
        let stranger = TestSigner(
            key: try JWTSigningKey.generate(.es256), algorithm: .es256, kid: "k1",
            audience: "tern:\(server.bootstrap.projectId)")
        let token = try stranger.token(["db_id": try await Self.databaseId(server), "email": "a@b"])
        let reply = try await server.sdk(.pushSubscribe, InProcessServer.subscription(), jwt: token)
        #expect(reply.status == 401)
        #expect(reply.errorText == "JWT rejected: signature does not verify")
    }

    @Test func algNoneIsRejected() async throws {
        let server = try await InProcessServer()
        defer { Task { await server.finish() } }
        _ = try await TestSigner.register(on: server)
        func part(_ json: String) -> String {
            Data(json.utf8).base64EncodedString().replacingOccurrences(of: "=", with: "")
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        }
        let db = try await Self.databaseId(server)
        let token =
            part(#"{"alg":"none","kid":"k1"}"#) + "."
            + part(#"{"aud":"tern:1","exp":4000000000,"matching":{"db_id":\#(db),"email":"a@b"}}"#) + "."
        let reply = try await server.sdk(.pushSubscribe, InProcessServer.subscription(), jwt: token)
        #expect(reply.status == 401)
        #expect(reply.errorText.contains("none"))
    }

    @Test func hs256TokenAgainstAPublicKeyIsRejected() async throws {
        let server = try await InProcessServer()
        defer { Task { await server.finish() } }
        let signer = try await TestSigner.register(on: server, algorithm: .rs256)
        let confused = TestSigner(
            key: JWTSigningKey.hmac(Data((signer.key.publicKeyPEM ?? "").utf8)), algorithm: .hs256, kid: "k1",
            audience: signer.audience)
        let token = try confused.token(["db_id": try await Self.databaseId(server), "email": "a@b"])
        let reply = try await server.sdk(.pushSubscribe, InProcessServer.subscription(), jwt: token)
        #expect(reply.status == 401)
    }

    @Test func unknownKidSaysWhichKeyToAdd() async throws {
        let server = try await InProcessServer()
        defer { Task { await server.finish() } }
        let signer = try await TestSigner.register(on: server)
        let token = try signer.token(["db_id": try await Self.databaseId(server), "email": "a@b"], kid: "other")
        let reply = try await server.sdk(.pushSubscribe, InProcessServer.subscription(), jwt: token)
        #expect(reply.status == 401)
        #expect(reply.errorText.contains("no key with kid \"other\""))
    }

    @Test func matchingMustNameExactlyOneIdentityAndAKnownDatabase() async throws {
        let server = try await InProcessServer()
        defer { Task { await server.finish() } }
        let signer = try await TestSigner.register(on: server)
        let db = try await Self.databaseId(server)
        let cases: [([String: Any], String)] = [
            (["db_id": db], "exactly one identity"),
            (["db_id": db, "email": "a@b", "phone": "+1"], "exactly one identity"),
            (["email": "a@b"], "matching.db_id"),
            (["db_id": 999, "email": "a@b"], "matching.db_id 999 is not a profile database"),
            (["db_id": db, "field_name": "x"], "field_value"),
            (["db_id": db, "provider": "ios-apns"], "subscription_id"),
        ]
        for (matching, expected) in cases {
            let reply = try await server.sdk(
                .pushSubscribe, InProcessServer.subscription(), jwt: try signer.token(matching))
            #expect(reply.status == 401, "\(matching)")
            #expect(reply.errorText.contains(expected), "\(matching): \(reply.errorText)")
        }
    }

    @Test func everyIdentityKindFindsTheSameProfileAgain() async throws {
        let server = try await InProcessServer()
        defer { Task { await server.finish() } }
        let signer = try await TestSigner.register(on: server)
        let db = try await Self.databaseId(server)
        let byEmail = try await server.sdk(
            .pushSubscribe, InProcessServer.subscription(extra: ["profile_fields": ["_phone": "+371", "crm": 42]]),
            jwt: try signer.token(["db_id": db, "email": "ada@example.com"]))
        let id = try #require(byEmail.profile?.id)
        let identities: [[String: Any]] = [
            ["db_id": db, "phone": "+371"], ["db_id": db, "profile_id": id],
            ["db_id": db, "field_name": "crm", "field_value": 42],
            ["db_id": db, "provider": "ios-apns", "subscription_id": "token-1"],
        ]
        for matching in identities {
            let reply = try await server.sdk(
                .pushStatus, ["mode": "latest"], jwt: try signer.token(matching))
            #expect(reply.profile?.id == id, "\(matching)")
        }
    }

    @Test func jwtWithoutRTokenUsesTheProjectsOnlyPushResource() async throws {
        let server = try await InProcessServer()
        defer { Task { await server.finish() } }
        let signer = try await TestSigner.register(on: server)
        let token = try signer.token(["db_id": try await Self.databaseId(server), "email": "a@b"])
        let reply = try await server.sdk(.pushSubscribe, InProcessServer.subscription(), jwt: token)
        #expect(reply.status == 200)
        _ = try await server.admin(
            "POST", "/resources", json: ["project_id": server.bootstrap.projectId, "name": "second"])
        let ambiguous = try await server.sdk(.pushSubscribe, InProcessServer.subscription(), jwt: token)
        #expect(ambiguous.status == 400)
        #expect(ambiguous.errorText.contains("has 2 push resources"))
        let named = try await server.sdk(
            .pushSubscribe, InProcessServer.subscription(), rToken: server.bootstrap.rToken, jwt: token)
        #expect(named.status == 200)
    }

    @Test func missingOrUnknownCredentialsAre401WithAReason() async throws {
        let server = try await InProcessServer()
        defer { Task { await server.finish() } }
        let body = try JSONSerialization.data(withJSONObject: InProcessServer.subscription())
        let none = await server.send("POST", Endpoint.pushSubscribe.path, body: body)
        #expect(none.status == 401)
        #expect(none.errorText.contains("X-Tern-RToken"))
        let unknown = try await server.sdk(.pushSubscribe, InProcessServer.subscription(), rToken: "rt_nope")
        #expect(unknown.status == 401)
        #expect(unknown.errorText.contains("no resource has this rToken"))
        let basic = await server.send(
            "POST", Endpoint.pushSubscribe.path, body: body, headers: ["Authorization": "Basic abc"])
        #expect(basic.status == 401)
        #expect(basic.errorText.contains("Bearer"))
    }
}
