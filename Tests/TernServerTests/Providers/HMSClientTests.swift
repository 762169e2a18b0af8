import Foundation
import Testing

@testable import TernServer

/// The HMS Push Kit client against the HMS-like peer over HTTP/2 and TLS: client-credentials
/// token, up to 1,000 tokens per request, partial success, token expiry.
@Suite struct HMSClientTests {
    @Test func aPartialSuccessMarksExactlyTheTokensItNames() async throws {
        let fixture = try await HMSFixture.start()
        defer { fixture.peer.stop() }
        for number in [2, 4] { try await fixture.peer.script(HMSFixture.push(number).token, [["illegal": true]]) }
        let client = try fixture.client()
        let outcomes = await client.send((1...5).map { HMSFixture.push($0) })
        for number in [1, 3, 5] { #expect(outcomes[Int64(number)]?.isSent == true) }
        for number in [2, 4] {
            guard case .invalidToken(let reason, nil) = outcomes[Int64(number)] else {
                Issue.record("push \(number): \(String(describing: outcomes[Int64(number)]))")
                continue
            }
            #expect(reason.contains("80100000"))
        }
        let requests = try await fixture.peer.log().filter { $0["tokens"] != nil }
        #expect(requests.count == 1)
        #expect((requests.first?["tokens"] as? [String])?.count == 5)
        #expect(requests.first?["target_user_type"] as? Int == 2)
    }

    @Test func aLargeAudienceGoesInRequestsOfAtMostAThousandTokens() async throws {
        let fixture = try await HMSFixture.start()
        defer { fixture.peer.stop() }
        let client = try fixture.client()
        let outcomes = await client.send((1...2500).map { HMSFixture.push($0) })
        #expect(outcomes.count == 2500)
        #expect(outcomes.values.allSatisfy { $0.isSent })
        let sizes = try await fixture.peer.log().compactMap { ($0["tokens"] as? [String])?.count }
        #expect(sizes.sorted() == [500, 1000, 1000])
        #expect(try await fixture.peer.stats()["access_tokens_issued"] == 1)
    }

    @Test func differentMessagesAndSandboxGoInTheirOwnRequests() async throws {
        let fixture = try await HMSFixture.start()
        defer { fixture.peer.stop() }
        let client = try fixture.client()
        let pushes = [
            HMSFixture.push(1), HMSFixture.push(2, message: "m-4"), HMSFixture.push(3, environment: .sandbox),
            HMSFixture.push(4),
        ]
        #expect(await client.send(pushes).values.allSatisfy { $0.isSent })
        let requests = try await fixture.peer.log().filter { $0["tokens"] != nil }
        #expect(requests.count == 3)
        let sandbox = requests.first { ($0["tokens"] as? [String]) == [HMSFixture.push(3).token] }
        #expect(sandbox?["target_user_type"] as? Int == 1)
    }

    @Test func anExpiredAccessTokenIsRenewedAndTheRequestSentAgain() async throws {
        let fixture = try await HMSFixture.start()
        defer { fixture.peer.stop() }
        let client = try fixture.client()
        #expect(await client.send([HMSFixture.push(1)]).values.allSatisfy { $0.isSent })
        try await fixture.peer.expire(try await client.accessToken.token())
        let outcomes = await client.send((2...4).map { HMSFixture.push($0) })
        #expect(outcomes.values.allSatisfy { $0.isSent }, "\(outcomes)")
        #expect(try await fixture.peer.stats()["access_tokens_issued"] == 2)
        #expect(try await fixture.peer.log().contains { $0["code"] as? String == "80200003" })
    }

    @Test func requestLevelErrorsApplyToEveryTokenOfTheRequest() async throws {
        let fixture = try await HMSFixture.start()
        defer { fixture.peer.stop() }
        let client = try fixture.client()
        try await fixture.peer.script(
            HMSFixture.push(1).token,
            [["status": 503, "code": "80300002", "msg": "flow control", "retry_after": 9]])
        let busy = await client.send((1...3).map { HMSFixture.push($0) })
        #expect(busy.values.allSatisfy { $0 == .retry(after: 9, reason: "HMS 503 80300002: flow control") })
        try await fixture.peer.script(
            HMSFixture.push(1).token, [["status": 500, "code": "81000001", "msg": "System inner error"]])
        let inner = await client.send((1...3).map { HMSFixture.push($0) })
        #expect(inner.values.allSatisfy { $0 == .retry(after: nil, reason: "HMS 500 81000001: System inner error") })
        for number in 1...3 { try await fixture.peer.script(HMSFixture.push(number).token, [["illegal": true]]) }
        let invalid = await client.send((1...3).map { HMSFixture.push($0) })
        #expect(
            invalid.values.allSatisfy {
                $0 == .invalidToken(reason: "HMS 400 80300007: All the tokens are invalid", since: nil)
            })
    }

    @Test func aWrongSecretFailsWithTheReason() async throws {
        let fixture = try await HMSFixture.start()
        defer { fixture.peer.stop() }
        let client = try fixture.client(credential: HMSCredential(appId: HMSFixture.appId, clientSecret: "wrong"))
        guard case .failed(let reason) = await client.send([HMSFixture.push(1)])[1] else {
            Issue.record("a wrong secret must fail")
            return
        }
        #expect(reason.contains("invalid client"))
        #expect(reason.contains("check the app id and client secret"))
    }

    @Test func batchesNeverRepeatATokenAndKeepMessagesApart() {
        var pushes = (1...5).map { HMSFixture.push($0) }
        var repeated = HMSFixture.push(1)
        repeated.deliveryId = 99
        pushes.append(repeated)
        pushes.append(HMSFixture.push(7, message: "other"))
        let batches = HMSBatch.make(pushes, size: 3)
        #expect(batches.map { $0.pushes.map(\.deliveryId) } == [[1, 2, 3], [4, 5, 99], [7]])
    }
}
