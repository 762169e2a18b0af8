import Foundation
import TernProtocol
import Testing

@testable import TernServer

/// The payload: `aps`, the `tern` object the SDK reads, custom data at the top, one id per device.
@Suite struct PushPayloadTests {
    static func object(_ data: Data) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    static func plan(_ json: [String: Any]) throws -> MessagePlan {
        var body = json
        if body["audience"] == nil { body["audience"] = ["type": "token", "provider": "ios-apns", "token": "t"] }
        let request = try JSONDecoder().decode(MessageRequest.self, from: JSONSerialization.data(withJSONObject: body))
        return try MessagePlan(request, publicId: "m_0123456789abcdef")
    }

    @Test func anAlertWithMediaButtonsAndDataHasEveryPartWhereTheSDKLooks() throws {
        let plan = try Self.plan([
            "title": "Sale", "subtitle": "Today", "body": "30% off", "badge": 2, "sound": "default",
            "thread_id": "sales", "media_url": "https://cdn.example.com/a.jpg", "click_url": "https://example.com/s",
            "buttons": [
                ["id": "shop", "title": "Shop", "action": "url", "url": "https://example.com/s"],
                ["id": "later", "title": "Later", "action": "dismiss"],
            ],
            "data": ["order_id": "A-1001", "n": 3],
        ])
        let payload = try Self.object(plan.template.payload(pushId: "m_0123456789abcdef.42"))
        let aps = try #require(payload["aps"] as? [String: Any])
        let alert = try #require(aps["alert"] as? [String: Any])
        #expect(alert["title"] as? String == "Sale")
        #expect(alert["subtitle"] as? String == "Today")
        #expect(alert["body"] as? String == "30% off")
        #expect(aps["badge"] as? Int == 2)
        #expect(aps["sound"] as? String == "default")
        #expect(aps["thread-id"] as? String == "sales")
        #expect(aps["mutable-content"] as? Int == 1)
        #expect(aps["content-available"] == nil)
        #expect(payload["order_id"] as? String == "A-1001")
        #expect(payload["n"] as? Int == 3)
        let tern = try JSONDecoder().decode(
            TernPushPayload.self, from: JSONSerialization.data(withJSONObject: payload["tern"] as Any))
        #expect(tern.messageId == "m_0123456789abcdef.42")
        #expect(tern.version == 1)
        #expect(tern.mediaURL == "https://cdn.example.com/a.jpg")
        #expect(tern.clickURL == "https://example.com/s")
        #expect(tern.buttons?.map(\.id) == ["shop", "later"])
        #expect(tern.buttons?.first?.action == .url)
        #expect(tern.track == TernPushPayload.Tracking(delivery: true, open: true))
    }

    @Test func mutableContentOnlyWhenTheExtensionHasWork() throws {
        let plain = try Self.plan(["title": "Hi", "track_delivery": false])
        let plainAPS = try #require(try Self.object(plain.template.payload(pushId: "x"))["aps"] as? [String: Any])
        #expect(plainAPS["mutable-content"] == nil)
        let tracked = try Self.plan(["title": "Hi"])
        let trackedAPS = try #require(try Self.object(tracked.template.payload(pushId: "x"))["aps"] as? [String: Any])
        #expect(trackedAPS["mutable-content"] as? Int == 1)
        let media = try Self.plan(["title": "Hi", "track_delivery": false, "media_url": "https://e.com/a.png"])
        let mediaAPS = try #require(try Self.object(media.template.payload(pushId: "x"))["aps"] as? [String: Any])
        #expect(mediaAPS["mutable-content"] as? Int == 1)
    }

    @Test func aBackgroundPushIsContentAvailableWithPriorityFiveAndTracksNothing() throws {
        let plan = try Self.plan(["push_type": "background", "data": ["sync": true]])
        #expect(plan.pushType == .background)
        #expect(plan.priority == 5)
        let payload = try Self.object(plan.template.payload(pushId: "m.1"))
        let aps = try #require(payload["aps"] as? [String: Any])
        #expect(aps["content-available"] as? Int == 1)
        #expect(aps["alert"] == nil)
        #expect(aps["mutable-content"] == nil)
        #expect(payload["sync"] as? Bool == true)
        let tern = try #require(payload["tern"] as? [String: Any])
        #expect((tern["track"] as? [String: Bool]) == ["delivery": false, "open": false])
    }

    @Test func everyDeviceGetsItsOwnIdAndTheRestIsByteForByteTheSame() throws {
        let plan = try Self.plan(["title": "Hi", "body": "tern-push-id lookalike"])
        let first = plan.template.payload(pushId: "m_0123456789abcdef.1")
        let second = plan.template.payload(pushId: "m_0123456789abcdef.1000000")
        #expect(
            String(decoding: first, as: UTF8.self).replacingOccurrences(of: ".1\"", with: ".1000000\"")
                == String(decoding: second, as: UTF8.self))
        #expect(
            try Self.object(second)["tern"].flatMap { ($0 as? [String: Any])?["message_id"] as? String }
                == "m_0123456789abcdef.1000000")
    }

    @Test func aPayloadOverAPNsLimitIsRefusedWithItsSize() throws {
        #expect(throws: APIError.self) {
            try Self.plan(["title": "Hi", "data": ["blob": String(repeating: "x", count: 4000)]])
        }
        do {
            _ = try Self.plan(["title": "Hi", "data": ["blob": String(repeating: "x", count: 4000)]])
        } catch let error as APIError {
            #expect(error.status == 400)
            #expect(error.reason.contains("over APNs' limit of 4096"))
            #expect(error.reason.contains("bytes"))
        }
        // Just under the limit for the longest delivery id is accepted, and the largest payload fits.
        var size = 4096
        var accepted: MessagePlan?
        while accepted == nil {
            accepted = try? Self.plan(["title": "Hi", "data": ["blob": String(repeating: "x", count: size)]])
            size -= 1
        }
        let largest = try #require(accepted).template.payload(pushId: "m_0123456789abcdef.9223372036854775807")
        #expect(largest.count <= 4096)
        #expect(largest.count >= 4090)
    }
}
