import Foundation
import TernProtocol
import Testing

@testable import TernServer

/// The APNs client against the APNs-like peer over HTTP/2 and TLS (test CA): the provider token
/// is checked by the peer (ES256 signature, kid, iss, iat), headers and payload arrive as sent.
@Suite struct APNsClientTests {
    @Test func alertPushArrivesWithEveryHeaderAndTheAPNsID() async throws {
        let fixture = try await APNsFixture.start()
        defer { fixture.peer.stop() }
        let client = try fixture.client()
        let expiration = Date().addingTimeInterval(3600)
        let push = APNsFixture.push(1, priority: 10, expiration: expiration, collapseId: "sale")
        let outcome = await client.send(push)
        guard case .sent(let apnsId?) = outcome else {
            Issue.record("expected sent with an apns-id, got \(outcome)")
            return
        }
        let entry = try #require(try await fixture.peer.log().first)
        let headers = try #require(entry["headers"] as? [String: String])
        #expect(headers["apns-topic"] == APNsFixture.topic)
        #expect(headers["apns-push-type"] == "alert")
        #expect(headers["apns-priority"] == "10")
        #expect(headers["apns-expiration"] == String(Int(expiration.timeIntervalSince1970)))
        #expect(headers["apns-collapse-id"] == "sale")
        #expect(headers["apns-id"] == apnsId)
        #expect(apnsId == APNsID.delivery(messageId: push.messageId, deliveryId: push.deliveryId))
        let payload = try #require(entry["payload"] as? [String: Any])
        #expect((payload["tern"] as? [String: Any])?["message_id"] as? String == "m-1")

        // The same delivery sent again (a retry, or a lease that expired) reaches APNs as the same push.
        guard case .sent(let again?) = await client.send(push) else {
            Issue.record("the second attempt was not sent")
            return
        }
        #expect(again == apnsId)
    }

    @Test func backgroundPushGoesWithPriorityFive() async throws {
        let fixture = try await APNsFixture.start()
        defer { fixture.peer.stop() }
        let client = try fixture.client()
        let outcome = await client.send(APNsFixture.push(2, type: .background, priority: 10))
        #expect(outcome.isSent)
        let headers = try #require(try await fixture.peer.log().first?["headers"] as? [String: String])
        #expect(headers["apns-push-type"] == "background")
        #expect(headers["apns-priority"] == "5")
    }

    @Test func aBatchSharesOneConnectionAndOneProviderToken() async throws {
        let fixture = try await APNsFixture.start(maxStreams: 1000)
        defer { fixture.peer.stop() }
        let client = try fixture.client()
        let outcomes = await client.send((1...300).map { APNsFixture.push($0) })
        #expect(outcomes.count == 300)
        #expect(outcomes.values.allSatisfy { $0.isSent })
        let stats = try await fixture.peer.stats()
        #expect(stats["connections"] == 2, "one for the pushes, one for the test's control requests")
        #expect(stats["provider_tokens"] == 1)
    }

    @Test func anotherConnectionOpensWhenTheStreamsRunOut() async throws {
        let fixture = try await APNsFixture.start(maxStreams: 4)
        defer { fixture.peer.stop() }
        // Four pushes the peer never answers hold every stream of the first connection.
        for number in 1...4 { try await fixture.peer.script(APNsFixture.token(number), [["never": true]]) }
        let client = try fixture.client(timeout: 6, streams: 4)
        let outcomes = await client.send((1...12).map { APNsFixture.push($0) })
        for number in 1...4 {
            guard case .retry(_, let reason) = outcomes[Int64(number)] else {
                Issue.record("push \(number): \(String(describing: outcomes[Int64(number)]))")
                continue
            }
            #expect(reason.contains("timed out"))
        }
        let others = (5...12).compactMap { outcomes[Int64($0)] }
        #expect(others.count == 8 && others.allSatisfy { $0.isSent }, "\(others)")
        let stats = try await fixture.peer.stats()
        #expect((stats["connections"] ?? 0) >= 3, "control + at least two for the pushes: \(stats)")
    }

    @Test func everyAPNsErrorBecomesItsOutcome() async throws {
        let fixture = try await APNsFixture.start()
        defer { fixture.peer.stop() }
        let unregisteredAt = 1_780_000_000_000
        let script: [(Int, [String: Any])] = [
            (1, ["status": 400, "reason": "BadDeviceToken"]),
            (2, ["status": 410, "reason": "Unregistered", "timestamp": unregisteredAt]),
            (3, ["status": 413, "reason": "PayloadTooLarge"]),
            (4, ["status": 429, "reason": "TooManyRequests", "retry_after": 7]),
            (5, ["status": 500, "reason": "InternalServerError"]),
            (6, ["status": 503, "reason": "ServiceUnavailable", "retry_after": 30]),
            (7, ["status": 400, "reason": "DeviceTokenNotForTopic"]),
            (8, ["status": 400, "reason": "TopicDisallowed"]),
            (9, ["status": 403, "reason": "InvalidProviderToken"]),
        ]
        for (number, answer) in script { try await fixture.peer.script(APNsFixture.token(number), [answer]) }
        let client = try fixture.client()
        let outcomes = await client.send((1...9).map { APNsFixture.push($0) })
        #expect(outcomes[1] == .invalidToken(reason: "APNs 400 BadDeviceToken", since: nil))
        #expect(
            outcomes[2]
                == .invalidToken(
                    reason: "APNs 410 Unregistered",
                    since: Date(timeIntervalSince1970: Double(unregisteredAt) / 1000)))
        #expect(outcomes[3] == .failed(reason: "APNs 413 PayloadTooLarge"))
        #expect(outcomes[4] == .retry(after: 7, reason: "APNs 429 TooManyRequests"))
        #expect(outcomes[5] == .retry(after: nil, reason: "APNs 500 InternalServerError"))
        #expect(outcomes[6] == .retry(after: 30, reason: "APNs 503 ServiceUnavailable"))
        #expect(outcomes[7] == .invalidToken(reason: "APNs 400 DeviceTokenNotForTopic", since: nil))
        #expect(outcomes[8] == .failed(reason: "APNs 400 TopicDisallowed"))
        guard case .failed(let reason) = outcomes[9] else {
            Issue.record("InvalidProviderToken: \(String(describing: outcomes[9]))")
            return
        }
        #expect(reason.contains("check the team id, key id and .p8 key"))
    }

    @Test func payloadOver4096BytesIsRefusedBeforeSending() async throws {
        let fixture = try await APNsFixture.start()
        defer { fixture.peer.stop() }
        let client = try fixture.client()
        let body = String(repeating: "x", count: 4100)
        let payload = Data(#"{"aps":{"alert":{"body":"\#(body)"}}}"#.utf8)
        let outcome = await client.send(APNsFixture.push(1, payload: payload))
        guard case .failed(let reason) = outcome else {
            Issue.record("expected failed, got \(outcome)")
            return
        }
        #expect(reason.contains("\(payload.count) bytes"))
        #expect(reason.contains("4096"))
        #expect(try await fixture.peer.log().isEmpty)
    }

    @Test func aTokenThatIsNotHexIsInvalidWithoutAsking() async throws {
        let fixture = try await APNsFixture.start()
        defer { fixture.peer.stop() }
        let client = try fixture.client()
        let outcome = await client.send(APNsFixture.push(1, token: "not/a-token"))
        guard case .invalidToken(_, nil) = outcome else {
            Issue.record("expected invalidToken, got \(outcome)")
            return
        }
        #expect(try await fixture.peer.log().isEmpty)
    }

    @Test func expiredProviderTokenIsRenewedAndThePushSentAgain() async throws {
        let fixture = try await APNsFixture.start()
        defer { fixture.peer.stop() }
        let client = try fixture.client()
        #expect(await client.send(APNsFixture.push(1)).isSent)
        let first = try await client.providerToken.token()
        try await fixture.peer.expire(first)
        let outcomes = await client.send((2...21).map { APNsFixture.push($0) })
        #expect(outcomes.values.allSatisfy { $0.isSent }, "\(outcomes.values.filter { !$0.isSent })")
        #expect(try await client.providerToken.token() != first)
        #expect(await client.providerToken.issued == 2, "twenty refusals renew the token once")
    }

    @Test func providerTokenIsRenewedOnlyAfterItsRefreshAge() async throws {
        let fixture = try await APNsFixture.start()
        defer { fixture.peer.stop() }
        // Start 50 minutes in the past, so a token signed "now" is still young enough for the peer.
        let clock = TestClock(Date().addingTimeInterval(-50 * 60))
        let client = try fixture.client(clock: clock.closure)
        #expect(await client.send(APNsFixture.push(1)).isSent)
        clock.advance(19 * 60)
        #expect(await client.send(APNsFixture.push(2)).isSent)
        #expect(await client.providerToken.issued == 1, "not renewed before 20 minutes")
        clock.advance(31 * 60)
        #expect(await client.send(APNsFixture.push(3)).isSent)
        #expect(await client.providerToken.issued == 2, "renewed once 40 minutes passed")
        #expect(try await fixture.peer.stats()["provider_tokens"] == 2)
    }

    @Test func goAwayIsAnsweredByReconnecting() async throws {
        let fixture = try await APNsFixture.start()
        defer { fixture.peer.stop() }
        try await fixture.peer.goAway(after: 5)
        let client = try fixture.client()
        let first = await client.send((1...30).map { APNsFixture.push($0) })
        #expect(first.count == 30)
        #expect(first.values.filter { $0.isSent }.count >= 5, "\(first.values.filter { !$0.isSent })")
        for (id, outcome) in first where !outcome.isSent {
            guard case .retry = outcome else {
                Issue.record("push \(id) after GOAWAY: \(outcome)")
                continue
            }
        }
        try await fixture.peer.goAway(after: 0)
        let second = await client.send((31...40).map { APNsFixture.push($0) })
        #expect(second.values.allSatisfy { $0.isSent }, "\(second.values.filter { !$0.isSent })")
        let stats = try await fixture.peer.stats()
        #expect((stats["goaways"] ?? 0) >= 1)
        #expect((stats["connections"] ?? 0) >= 3, "the client reconnected: \(stats)")
    }

    @Test func aWrongKeyFailsWithAReasonAboutTheCredentials() async throws {
        let fixture = try await APNsFixture.start()
        defer { fixture.peer.stop() }
        let other = try JWTSigningKeyFactory.es256PEM()
        var credential = fixture.credential
        credential.privateKey = other
        let client = try APNsClient(
            credential: credential, origin: fixture.peer.origin, options: .init(caFile: fixture.peer.caFile))
        guard case .failed(let reason) = await client.send(APNsFixture.push(1)) else {
            Issue.record("a wrong key must fail")
            return
        }
        #expect(reason.hasPrefix("APNs 403 InvalidProviderToken"))
    }

    @Test func aClosedClientAnswersRetryAndSendsNothing() async throws {
        let fixture = try await APNsFixture.start()
        defer { fixture.peer.stop() }
        let client = try fixture.client()
        #expect(await client.send(APNsFixture.push(1)).isSent)
        client.close()
        let outcome = await client.send(APNsFixture.push(2))
        guard case .retry(_, let reason) = outcome else {
            Issue.record("a closed client must answer retry")
            return
        }
        #expect(reason.contains("shut down"), "\(reason)")
        #expect(try await fixture.peer.log().count == 1)
    }
}

extension DeliveryOutcome {
    var isSent: Bool {
        if case .sent = self { return true }
        return false
    }
}
