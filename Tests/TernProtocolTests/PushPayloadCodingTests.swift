import Foundation
import Testing

@testable import TernProtocol

/// The `tern` object has one definition: `TernPushPayload` with its `Key`s. What `json` writes (the
/// server's payloads) is what its `Codable` encoding writes, and decodes back to the same value.
@Suite struct PushPayloadCodingTests {
    static let payloads: [TernPushPayload] = [
        TernPushPayload(messageId: "m-1"),
        TernPushPayload(
            messageId: "m_3fa2.17", mediaURL: "https://cdn.example.com/a.jpg",
            buttons: [
                PushButton(id: "open", title: "Open", action: .open),
                PushButton(id: "site", title: "Site", action: .url, url: "https://example.com/x"),
                PushButton(id: "no", title: "Dismiss", action: .dismiss),
            ],
            clickURL: "https://example.com/sale", track: .init(delivery: true, open: false)),
        TernPushPayload(version: 2, messageId: "m-2", track: .init(delivery: false, open: true)),
    ]

    @Test(arguments: payloads)
    func jsonIsTheCodableEncodingAndDecodesBack(_ payload: TernPushPayload) throws {
        let encoded = try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(payload))
        #expect(payload.json == encoded)
        let decoded = try JSONDecoder().decode(TernPushPayload.self, from: JSONEncoder().encode(payload.json))
        #expect(decoded == payload)
    }

    @Test func theKeysAreTheWireNames() throws {
        #expect(
            TernPushPayload.Key.allCases.map(\.stringValue) == [
                "v", "message_id", "media_url", "buttons", "click_url", "track",
            ])
        #expect(TernPushPayload.Tracking.Key.allCases.map(\.stringValue) == ["delivery", "open"])
        #expect(PushButton.Key.allCases.map(\.stringValue) == ["id", "title", "action", "url"])
        let full = try #require(Self.payloads[1].json.objectValue)
        #expect(Set(full.keys) == Set(TernPushPayload.Key.allCases.map(\.stringValue)))
        #expect(full[TernPushPayload.Key.messageId] == .string("m_3fa2.17"))
    }
}
