import Foundation
import TernHTTP
import Testing

@testable import TernServer

/// Pure pieces of the provider clients: ids, request checks, answer mapping, credential checks.
@Suite struct ProviderUnitTests {
    @Test func eachDeliveryHasOneAPNsIDOnEveryAttempt() {
        let ids = (1...1000).map { APNsID.delivery(messageId: "m1", deliveryId: Int64($0)) }
        #expect(Set(ids).count == 1000, "two deliveries share an apns-id")
        #expect(ids[6] == APNsID.delivery(messageId: "m1", deliveryId: 7), "a resend must carry the id it had")
        #expect(
            APNsID.delivery(messageId: "m2", deliveryId: 7) != ids[6], "another message's delivery 7 is another push")
        for id in ids.prefix(50) + [APNsID.delivery(messageId: "", deliveryId: .max)] {
            #expect(UUID(uuidString: id) != nil, "\(id)")
            let characters = Array(id)
            #expect(characters.count == 36 && characters[14] == "8", "version 8: \(id)")
            #expect("89ab".contains(characters[19]), "variant 10: \(id)")
            #expect(id == id.lowercased())
        }
        #expect(ids[0].hasSuffix("-8000-000000000001"), "the delivery's row id is the last 62 bits: \(ids[0])")
    }

    @Test func apnsRequestsAreCheckedBeforeSending() throws {
        let now = Date()
        var shared = APNsSharedFields(authorization: "bearer jwt")
        func make(
            _ push: OutgoingPush, topic: String? = "com.example.app"
        ) throws(DeliveryOutcomeError) -> HTTP2ConnectionPool.Request {
            try APNsRequest.make(
                push, devicePath: APNsRequest.devicePath(URL(string: "https://127.0.0.1:1")!), shared: &shared,
                defaultTopic: topic, timeout: 5, now: now)
        }
        func fields(_ request: HTTP2ConnectionPool.Request) -> [String: String] {
            Dictionary(
                ((request.shared?.fields.map { ($0.name, $0.value) } ?? []) + request.headers),
                uniquingKeysWith: { first, _ in first })
        }
        var push = APNsFixture.push(1)
        let request = try make(push)
        #expect(request.path == "/3/device/\(push.token)")
        #expect(request.method == "POST")
        #expect(APNsRequest.devicePath(URL(string: "https://127.0.0.1:1/apns/")!) == "/apns/3/device/")
        #expect(
            fields(request) == [
                "authorization": "bearer jwt", "apns-topic": "com.example.app", "apns-push-type": "alert",
                "apns-priority": "10", "content-type": "application/json",
                "apns-id": APNsID.delivery(messageId: push.messageId, deliveryId: push.deliveryId),
            ])
        #expect(request.headers.map(\.0) == ["apns-id"], "only the id is the push's own")
        // The next push of the same message shares the fields; one that differs gets its own.
        let next = try make(APNsFixture.push(9))
        #expect(fields(next)["apns-id"] == APNsID.delivery(messageId: push.messageId, deliveryId: 9))
        #expect(next.shared?.fields.elementsEqual(request.shared?.fields ?? [], by: ==) == true)
        let collapsing = try make(APNsFixture.push(10, collapseId: "sale"))
        #expect(fields(collapsing)["apns-collapse-id"] == "sale")
        #expect(fields(try make(APNsFixture.push(11)))["apns-collapse-id"] == nil)
        #expect(fields(try make(APNsFixture.push(12), topic: "com.example.other"))["apns-topic"] == "com.example.other")
        // A topic that cannot be a header fails the push, as the pool would have.
        let badTopic = #expect(throws: DeliveryOutcomeError.self) { try make(push, topic: "com.example\r\nx: y") }
        guard case .failed(let reason)? = badTopic?.outcome else {
            Issue.record("a topic with a line break must fail the push: \(String(describing: badTopic))")
            return
        }
        #expect(reason.contains("header apns-topic has a line break"), "\(reason)")
        #expect(throws: DeliveryOutcomeError.self) { try make(push, topic: nil) }
        push.expiration = now.addingTimeInterval(-1)
        #expect(throws: DeliveryOutcomeError.self) { try make(push) }
        push = APNsFixture.push(2, collapseId: String(repeating: "c", count: 65))
        #expect(throws: DeliveryOutcomeError.self) { try make(push) }
        push = APNsFixture.push(3, priority: 7)
        #expect(throws: DeliveryOutcomeError.self) { try make(push) }
        #expect(!APNsRequest.isDeviceToken("abc"))
        #expect(!APNsRequest.isDeviceToken(""))
        #expect(APNsRequest.isDeviceToken("00ffAA"))
        #expect(!APNsRequest.isDeviceToken("00ffAG"))
        #expect(!APNsRequest.isDeviceToken(String(repeating: "a", count: 402)))
    }

    @Test func apnsAnswersWithoutABodyStillSayWhatHappened() {
        let answer = APNsAnswer.read(HTTP2Response(status: 502, headers: [], body: Data(), httpVersion: "2"))
        #expect(answer == .outcome(.retry(after: nil, reason: "APNs 502 no reason given")))
        let expired = APNsAnswer.read(
            HTTP2Response(
                status: 403, headers: [], body: Data(#"{"reason":"ExpiredProviderToken"}"#.utf8), httpVersion: "2"))
        #expect(expired == .renewProviderToken)
    }

    @Test func credentialsAreCheckedWithTheFieldToFix() throws {
        #expect(throws: CredentialError("team_id must be the 10-character Apple team id")) {
            try ProviderCredential.decode(
                .apns, from: Data(#"{"team_id":"x","key_id":"KEY1234567","private_key":"k"}"#.utf8))
        }
        #expect(throws: CredentialError.self) {
            try ProviderCredential.decode(.huawei, from: Data(#"{"app_id":"","client_secret":"s"}"#.utf8))
        }
        let missing = #expect(throws: CredentialError.self) {
            try ProviderCredential.decode(.firebase, from: Data(#"{"project_id":"p"}"#.utf8))
        }
        #expect(missing?.reason.contains("is required") == true)
        let hms = try ProviderCredential.decode(.huawei, from: Data(#"{"app_id":"104","client_secret":"s"}"#.utf8))
        #expect(hms == .hms(HMSCredential(appId: "104", clientSecret: "s")))
    }
}
