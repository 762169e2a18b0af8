import Foundation
import TernCrypto
import Testing

@testable import TernServer

/// The FCM HTTP v1 client against the FCM-like peer over HTTP/2 and TLS: the peer checks the
/// service-account grant (RS256 signature, kid, iss, scope, aud, iat, exp) and the bearer token.
@Suite struct FCMClientTests {
    @Test func pushesGoUnderMessageApnsWithOneAccessTokenForAll() async throws {
        let fixture = try await FCMFixture.start()
        defer { fixture.peer.stop() }
        let client = try fixture.client()
        let outcomes = await client.send((1...50).map { FCMFixture.push($0) })
        #expect(outcomes.count == 50)
        for outcome in outcomes.values {
            guard case .sent(let name?) = outcome else {
                Issue.record("expected sent with a name, got \(outcome)")
                continue
            }
            #expect(name.hasPrefix("projects/\(FCMFixture.projectId)/messages/"))
        }
        #expect(try await fixture.peer.stats()["access_tokens_issued"] == 1)
        let log = try await fixture.peer.log().filter { $0["token"] as? String == FCMFixture.push(7).token }
        let entry = try #require(log.first)
        let headers = try #require(entry["apns_headers"] as? [String: String])
        #expect(headers["apns-push-type"] == "alert")
        #expect(headers["apns-priority"] == "10")
        #expect(headers["apns-collapse-id"] == "c7")
        let payload = try #require(entry["payload"] as? [String: Any])
        #expect((payload["tern"] as? [String: Any])?["message_id"] as? String == "m-2")
    }

    @Test func backgroundPushGoesWithPriorityFive() async throws {
        let fixture = try await FCMFixture.start()
        defer { fixture.peer.stop() }
        let client = try fixture.client()
        #expect(await client.send(FCMFixture.push(1, type: .background)).isSent)
        let headers = try #require(
            try await fixture.peer.log().last(where: { $0["apns_headers"] != nil })?["apns_headers"]
                as? [String: String])
        #expect(headers["apns-priority"] == "5")
        #expect(headers["apns-push-type"] == "background")
    }

    @Test func everyFCMErrorBecomesItsOutcome() async throws {
        let fixture = try await FCMFixture.start()
        defer { fixture.peer.stop() }
        let script: [(Int, [String: Any])] = [
            (1, ["fcm": "UNREGISTERED"]),
            (2, ["fcm": "INVALID_ARGUMENT_TOKEN"]),
            (3, ["fcm": "INVALID_ARGUMENT"]),
            (4, ["fcm": "QUOTA_EXCEEDED", "retry_after": 12]),
            (5, ["fcm": "UNAVAILABLE", "retry_after": 3]),
            (6, ["fcm": "INTERNAL"]),
            (7, ["fcm": "SENDER_ID_MISMATCH"]),
            (8, ["fcm": "THIRD_PARTY_AUTH_ERROR"]),
        ]
        for (number, answer) in script { try await fixture.peer.script(FCMFixture.push(number).token, [answer]) }
        let client = try fixture.client()
        let outcomes = await client.send((1...8).map { FCMFixture.push($0) })
        #expect(
            outcomes[1] == .invalidToken(reason: "FCM 404 UNREGISTERED: Requested entity was not found.", since: nil))
        guard case .invalidToken = outcomes[2] else {
            Issue.record("an invalid token's INVALID_ARGUMENT: \(String(describing: outcomes[2]))")
            return
        }
        #expect(
            outcomes[3] == .failed(reason: "FCM 400 INVALID_ARGUMENT: Invalid value at 'message.apns.payload'"))
        #expect(
            outcomes[4] == .retry(after: 12, reason: "FCM 429 QUOTA_EXCEEDED: Quota exceeded for sending messages."))
        #expect(
            outcomes[5] == .retry(after: 3, reason: "FCM 503 UNAVAILABLE: The service is currently unavailable."))
        #expect(outcomes[6] == .retry(after: nil, reason: "FCM 500 INTERNAL: Internal error encountered."))
        for number in [7, 8] {
            guard case .failed = outcomes[Int64(number)] else {
                Issue.record("push \(number): \(String(describing: outcomes[Int64(number)]))")
                continue
            }
        }
    }

    @Test func aRevokedAccessTokenIsReplacedOnceAndThePushesSent() async throws {
        let fixture = try await FCMFixture.start()
        defer { fixture.peer.stop() }
        let client = try fixture.client()
        #expect(await client.send(FCMFixture.push(1)).isSent)
        try await fixture.peer.expire(try await client.accessToken.token())
        let outcomes = await client.send((2...11).map { FCMFixture.push($0) })
        #expect(outcomes.values.allSatisfy { $0.isSent }, "\(outcomes.values.filter { !$0.isSent })")
        #expect(try await fixture.peer.stats()["access_tokens_issued"] == 2)
    }

    @Test func aServiceAccountTheProviderRefusesFailsWithTheReason() async throws {
        let fixture = try await FCMFixture.start()
        defer { fixture.peer.stop() }
        var account = fixture.account
        account.privateKey = try JWTSigningKey.generate(.rs256).privateKeyPEM ?? ""
        let client = try fixture.client(account: account)
        guard case .failed(let reason) = await client.send(FCMFixture.push(1)) else {
            Issue.record("a wrong key must fail")
            return
        }
        #expect(reason.contains("invalid_grant"))
        #expect(reason.contains("check the service account"))
    }

    @Test func payloadOver4096BytesIsRefusedBeforeSending() async throws {
        let fixture = try await FCMFixture.start()
        defer { fixture.peer.stop() }
        let client = try fixture.client()
        let payload = Data(#"{"aps":{"alert":{"body":"\#(String(repeating: "y", count: 4100))"}}}"#.utf8)
        guard case .failed(let reason) = await client.send(FCMFixture.push(1, payload: payload)) else {
            Issue.record("a large payload must fail")
            return
        }
        #expect(reason.contains("4096"))
        #expect(try await fixture.peer.log().filter { $0["token"] != nil }.isEmpty)
    }
}
