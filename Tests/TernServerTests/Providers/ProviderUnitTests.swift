import Foundation
import TernHTTP
import Testing

@testable import TernServer

/// Pure pieces of the provider clients: ids, request checks, answer mapping, credential checks.
@Suite struct ProviderUnitTests {
    @Test func apnsIdsAreRandomVersionFourUUIDs() {
        let ids = (0..<1000).map { _ in APNsID.random() }
        #expect(Set(ids).count == 1000)
        for id in ids.prefix(50) {
            #expect(UUID(uuidString: id) != nil, "\(id)")
            let characters = Array(id)
            #expect(characters[14] == "4")
            #expect("89ab".contains(characters[19]))
            #expect(id == id.lowercased())
        }
    }

    @Test func apnsRequestsAreCheckedBeforeSending() throws {
        let now = Date()
        func make(
            _ push: OutgoingPush, topic: String? = "com.example.app"
        ) throws(DeliveryOutcomeError) -> HTTP2ConnectionPool.Request {
            try APNsRequest.make(
                push, devicePath: APNsRequest.devicePath(URL(string: "https://127.0.0.1:1")!),
                authorization: "bearer jwt", defaultTopic: topic, timeout: 5, now: now)
        }
        var push = APNsFixture.push(1)
        let request = try make(push)
        #expect(request.path == "/3/device/\(push.token)")
        #expect(request.method == "POST")
        #expect(APNsRequest.devicePath(URL(string: "https://127.0.0.1:1/apns/")!) == "/apns/3/device/")
        #expect(request.headers.first { $0.0 == "authorization" }?.1 == "bearer jwt")
        #expect(request.headers.first { $0.0 == "apns-expiration" } == nil)
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
