import Foundation
import TernProtocol
import TernPush
import Testing

@testable import TernServer

/// What the server's `PushPayloadBuilder` writes, the SDK's `PushPayloadParser` reads back whole:
/// both go by `TernPushPayload`'s keys, so a member renamed on one side fails here.
@Suite struct PushPayloadRoundTripTests {
    static let contents: [PushPayloadBuilder.Content] = [
        PushPayloadBuilder.Content(title: "Hi", body: "A plain alert"),
        PushPayloadBuilder.Content(
            title: "Sale", subtitle: "Today", body: "Everything -20%", badge: 3, sound: "default", threadId: "t",
            mediaURL: "https://cdn.example.com/a.jpg",
            buttons: [
                PushButton(id: "open", title: "Open", action: .open),
                PushButton(id: "site", title: "Site", action: .url, url: "https://example.com/x"),
                PushButton(id: "no", title: "Dismiss", action: .dismiss),
            ],
            clickURL: "https://example.com/sale", track: .init(delivery: false, open: true),
            data: ["order": 42, "kind": "promo"]),
        PushPayloadBuilder.Content(background: true, track: .init(delivery: true, open: false), data: ["sync": true]),
    ]

    @Test(arguments: contents)
    func whatTheServerBuildsTheSDKReadsBack(_ content: PushPayloadBuilder.Content) throws {
        let payload = try PushPayloadBuilder.template(content).payload(pushId: "m_3fa2.17")
        guard case .push(let message, let issues) = PushPayloadParser().parse(data: payload) else {
            Issue.record("not read as a Tern push: \(String(decoding: payload, as: UTF8.self))")
            return
        }
        #expect(issues.isEmpty)
        #expect(message.version == TernPushPayload.currentVersion)
        #expect(message.messageId == "m_3fa2.17")
        #expect(message.mediaURL?.absoluteString == content.mediaURL)
        #expect(message.buttons == content.buttons)
        #expect(message.clickURL?.absoluteString == content.clickURL)
        #expect(message.track == content.track)
        #expect(message.customData == content.data)
        if !content.background {
            #expect(message.alert == PushAlert(title: content.title, subtitle: content.subtitle, body: content.body))
        }
    }
}
