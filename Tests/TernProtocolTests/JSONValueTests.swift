import Foundation
import Testing

@testable import TernProtocol

@Suite struct JSONValueTests {
    @Test func decodesEachKindAndKeepsIntegersApartFromDoubles() throws {
        let json = #"{"a":1,"b":1.5,"c":"s","d":true,"e":null,"f":[1,"x"],"g":{"h":false}}"#
        let value = try JSONDecoder().decode(JSONValue.self, from: Data(json.utf8))
        let expected: JSONValue = ["a": 1, "b": 1.5, "c": "s", "d": true, "e": nil, "f": [1, "x"], "g": ["h": false]]
        #expect(value == expected)
        let again = try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(value))
        #expect(again == expected)
    }

    @Test func convertsAppValuesAndRefusesWhatJSONCannotCarry() {
        let fields: [String: Any?] = ["n": 3, "s": "x", "list": [1, 2], "map": ["k": true], "nothing": nil]
        #expect(JSONValue(any: fields) == ["n": 3, "s": "x", "list": [1, 2], "map": ["k": true], "nothing": nil])
        #expect(JSONValue(any: Date()) == nil)
        #expect(JSONValue(any: ["when": Date()] as [String: Any?]) == nil)
        #expect(JSONValue(any: Double.nan) == nil)
    }

    @Test func envelopeUsesTheReferenceKeys() throws {
        let profile = ProfileData(
            id: "p1", status: "subscribed", isTest: false,
            subscription: SubscriptionData(
                subscriptionId: "tok", hashId: "h", provider: "ios-apns", status: "subscribed",
                fields: ["_os": "IOS"], cats: [CategoryData(name: "news", title: "News", steady: false, active: true)]))
        let data = try JSONEncoder().encode(ResponseModel.ResponseWithProfile.ok(profile))
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(object["error"] as? Int == 0)
        #expect(object["error_text"] as? String == "")
        let decoded = try JSONDecoder().decode(ResponseModel.ResponseWithProfile.self, from: data)
        #expect(decoded.profile == profile)
    }

    @Test func actionFieldOperationsRoundTrip() {
        for operation in ActionFieldOperation.allCases {
            let encoded = operation.encoded(5)
            let parsed = ActionFieldOperation.parse(encoded)
            #expect(parsed?.0 == operation)
            #expect(parsed?.1 == 5)
        }
        #expect(ActionFieldOperation.parse(["action": "incr", "other": 1]) == nil)
        #expect(ActionFieldOperation.parse("plain") == nil)
    }
}

@Suite struct RequestDecodingTests {
    @Test func subscriptionRequestWithoutSyncDefaultsToSync() throws {
        let json = #"{"time":1,"provider":"ios-apns","subscription_id":"t"}"#
        let request = try JSONDecoder().decode(PushSubscriptionRequest.self, from: Data(json.utf8))
        #expect(request.sync)
        #expect(request.cats == nil)
    }

    @Test func goalWithoutClientIdDefaultsToEmpty() throws {
        let json = #"{"sid":"px","event_name":"app_install","time":1}"#
        let goal = try JSONDecoder().decode(GoalEvent.self, from: Data(json.utf8))
        #expect(goal.clientId == "")
        #expect(goal.utm == nil)
    }

    @Test func requestsRoundTrip() throws {
        let request = PushSubscriptionRequest(
            time: 5, provider: "ios-apns", subscriptionId: "t", sync: false, customFields: ["a": 1],
            cats: [CategoryData(name: "news", active: true)], replace: true, skipTriggers: false)
        #expect(try JSONDecoder().decode(PushSubscriptionRequest.self, from: JSONEncoder().encode(request)) == request)
    }
}
