import Foundation
import TernProtocol
import Testing

@testable import TernPush

@Suite struct PayloadUserInfoTests {
    @Test func numbersKeepTheirTypeWhenTheyArriveAsNSNumber() {
        let userInfo: [AnyHashable: Any] = [
            "one": NSNumber(value: 1), "yes": NSNumber(value: true), "half": NSNumber(value: 0.5),
            "swiftOne": 1, "swiftTrue": true, "text": "t", 7: "numeric key dropped",
        ]
        let json = UserInfoConversion.json(from: userInfo)
        #expect(json["one"] == .int(1))
        #expect(json["yes"] == .bool(true))
        #expect(json["half"] == .double(0.5))
        #expect(json["swiftOne"] == .int(1))
        #expect(json["swiftTrue"] == .bool(true))
        #expect(json["text"] == "t")
        #expect(json.count == 6)
    }

    @Test func aVersionOfOneAsNSNumberIsStillVersionOne() throws {
        let userInfo: [AnyHashable: Any] = [
            "aps": ["alert": ["title": "T"], "mutable-content": NSNumber(value: 1)],
            "tern": ["v": NSNumber(value: 1), "message_id": "m", "track": ["delivery": NSNumber(value: true)]],
        ]
        let outcome = PushPayloadParser().parse(userInfo: userInfo)
        let message = try #require(outcome.message)
        #expect(outcome.issues.isEmpty)
        #expect(message.version == 1)
        #expect(message.track.delivery)
        #expect(message.alert.title == "T")
    }

    @Test func nestedDictionariesAndArraysConvert() {
        let userInfo: [AnyHashable: Any] = ["a": [["b": NSNull()], [1, "x"]] as [Any]]
        #expect(UserInfoConversion.json(from: userInfo)["a"] == [["b": nil], [1, "x"]])
    }
}
