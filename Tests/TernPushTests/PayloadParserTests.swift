import Foundation
import TernProtocol
import Testing

@testable import TernPush

/// A payload as the server builds it: `TernPushPayload` encoded beside `aps` and custom keys.
func serverPayload(
    _ tern: TernPushPayload, alert: [String: JSONValue] = ["title": "Sale", "body": "30% off"],
    custom: [String: JSONValue] = ["order_id": "A-1001"]
) throws -> [String: JSONValue] {
    let encoded = try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(tern))
    var payload = custom
    payload["aps"] = .object(["alert": .object(alert), "mutable-content": 1])
    payload["tern"] = encoded
    return payload
}

@Suite struct PayloadParserTests {
    let parser = PushPayloadParser()

    @Test func aServerBuiltPayloadParsesIntoEveryField() throws {
        let tern = TernPushPayload(
            messageId: "m-42", mediaURL: "https://cdn.example.com/sale.jpg",
            buttons: [
                PushButton(id: "shop", title: "Shop now", action: .url, url: "https://example.com/sale"),
                PushButton(id: "later", title: "Later", action: .dismiss),
            ],
            clickURL: "https://example.com/sale", track: .init(delivery: true, open: true))
        let payload = try serverPayload(tern, alert: ["title": "Sale", "subtitle": "Today", "body": "30% off"])
        let data = try JSONEncoder().encode(JSONValue.object(payload))

        let outcome = parser.parse(data: data)

        let message = try #require(outcome.message)
        #expect(outcome.issues.isEmpty)
        #expect(message.messageId == "m-42")
        #expect(message.version == 1)
        #expect(message.alert == PushAlert(title: "Sale", subtitle: "Today", body: "30% off"))
        #expect(message.mediaURL == URL(string: "https://cdn.example.com/sale.jpg"))
        #expect(message.buttons == tern.buttons)
        #expect(message.clickURL == URL(string: "https://example.com/sale"))
        #expect(message.track == .init(delivery: true, open: true))
        #expect(message.customData == ["order_id": "A-1001"])
    }

    @Test func aPayloadWithoutTheTernObjectIsNotTern() {
        let outcome = parser.parse(json: ["aps": ["alert": "hi"], "other_sdk": ["id": 1]])
        #expect(outcome == .notTern)
        #expect(!PushPayloadParser.isTernPush(json: ["aps": ["alert": "hi"]]))
        #expect(!PushPayloadParser.isTernPush(["tern": "not an object"] as [AnyHashable: Any]))
        #expect(PushPayloadParser.isTernPush(["tern": ["message_id": "m"]] as [AnyHashable: Any]))
    }

    @Test func aTernKeyThatIsNotAnObjectIsMalformedUserInfo() {
        let outcome = parser.parse(json: ["tern": "m-1"])
        #expect(outcome.message == nil)
        #expect(outcome.issues.map(\.kind) == [.errorHandleUserInfo])
        #expect(outcome.issues.first?.reason.contains("must be an object") == true)
    }

    @Test func bytesThatAreNotJSONAreMalformedUserInfo() {
        #expect(parser.parse(data: Data("{not json".utf8)).issues.map(\.kind) == [.errorHandleUserInfo])
    }

    @Test(arguments: [
        (JSONValue?.none, "missing"), (.some(.null), "missing"), (.some(""), "empty"), (.some(" "), "empty"),
        (.some(42), "must be a string"), (.some(.string(String(repeating: "x", count: 257))), "longer"),
    ])
    func aMissingOrBadMessageIdIsUidIsNilAndThePushStillParses(value: JSONValue?, reason: String) throws {
        var tern: [String: JSONValue] = ["media_url": "https://cdn.example.com/a.png"]
        tern["message_id"] = value
        let outcome = parser.parse(json: ["tern": .object(tern)])
        let message = try #require(outcome.message)
        #expect(message.messageId == nil)
        #expect(message.mediaURL != nil)
        #expect(outcome.issues.map(\.kind) == [.uidIsNil])
        #expect(outcome.issues[0].reason.contains(reason))
    }

    @Test(arguments: [
        JSONValue.string("http://cdn.example.com/a.jpg"), "ftp://cdn.example.com/a.jpg", "not a url", "", 7,
        "https://", ["url": "https://x.example/a.png"],
    ])
    func aMediaURLThatIsNotHTTPSIsErrorMediaKeyMissing(value: JSONValue) throws {
        let outcome = parser.parse(json: ["tern": ["message_id": "m-1", "media_url": value]])
        let message = try #require(outcome.message)
        #expect(message.mediaURL == nil)
        #expect(outcome.issues.map(\.kind) == [.errorMediaKeyMissing])
    }

    @Test func plainHTTPOnLoopbackIsAcceptedOnlyWhenAllowed() {
        let payload: [String: JSONValue] = ["tern": ["message_id": "m-1", "media_url": "http://127.0.0.1:8080/a.png"]]
        #expect(parser.parse(json: payload).message?.mediaURL == nil)
        let testing = PushPayloadParser(mediaPolicy: MediaURLPolicy(allowsPlainHTTPOnLoopback: true))
        #expect(testing.parse(json: payload).message?.mediaURL == URL(string: "http://127.0.0.1:8080/a.png"))
        let remote: [String: JSONValue] = ["tern": ["message_id": "m-1", "media_url": "http://example.com/a.png"]]
        #expect(testing.parse(json: remote).message?.mediaURL == nil)
    }

    @Test func aClickURLMustBeAbsoluteButMayUseTheAppsOwnScheme() {
        let deepLink = parser.parse(json: ["tern": ["message_id": "m", "click_url": "myapp://orders/7"]])
        #expect(deepLink.message?.clickURL == URL(string: "myapp://orders/7"))
        let relative = parser.parse(json: ["tern": ["message_id": "m", "click_url": "/orders/7"]])
        #expect(relative.message?.clickURL == nil)
        #expect(relative.issues.map(\.kind) == [.errorHandleUserInfo])
    }

    @Test func anAbsentTrackObjectReportsNeitherEventAsTheServerReadsIt() throws {
        let absent = try #require(parser.parse(json: ["tern": ["message_id": "m"]]).message)
        #expect(absent.track == .init(delivery: false, open: false))
        let partial = try #require(parser.parse(json: ["tern": ["message_id": "m", "track": ["open": true]]]).message)
        #expect(partial.track == .init(delivery: false, open: true))
        let wrong = parser.parse(json: ["tern": ["message_id": "m", "track": ["open": "yes"]]])
        #expect(wrong.issues.map(\.kind) == [.errorHandleUserInfo])
    }

    @Test func aStringAlertIsTheBody() {
        let outcome = parser.parse(json: ["aps": ["alert": "Hello"], "tern": ["message_id": "m"]])
        #expect(outcome.message?.alert == PushAlert(body: "Hello"))
    }

    @Test func aNewerVersionIsReadForTheKeysThisCodeKnows() throws {
        let message = try #require(parser.parse(json: ["tern": ["v": 2, "message_id": "m", "future": true]]).message)
        #expect(message.version == 2)
        #expect(message.messageId == "m")
    }
}
