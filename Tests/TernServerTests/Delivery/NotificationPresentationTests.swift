import Foundation
import TernProtocol
import Testing

@testable import TernServer

/// A notification's presentation (iOS 15): interruption level, relevance score, target window and
/// Focus filter land in `aps` as APNs names them; a critical alert's sound is APNs' dictionary;
/// pushes that show nothing or something else refuse them by name.
@Suite struct NotificationPresentationTests {
    static func aps(_ json: [String: Any]) throws -> [String: Any] {
        let plan = try PushPayloadTests.plan(json)
        return try #require(try PushPayloadTests.object(plan.template.payload(pushId: "m.1"))["aps"] as? [String: Any])
    }

    static func refusal(_ json: [String: Any]) -> String {
        do {
            _ = try PushPayloadTests.plan(json)
            return "accepted"
        } catch let error as APIError {
            return error.reason
        } catch {
            return "\(error)"
        }
    }

    @Test func eachOptionLandsInAPSUnderAPNsName() throws {
        let aps = try Self.aps([
            "title": "Your table is ready", "sound": "chime.caf", "interruption_level": "time-sensitive",
            "relevance_score": 0.8, "target_content_id": "orders", "filter_criteria": "work",
        ])
        #expect(aps["interruption-level"] as? String == "time-sensitive")
        #expect(aps["relevance-score"] as? Double == 0.8)
        #expect(aps["target-content-id"] as? String == "orders")
        #expect(aps["filter-criteria"] as? String == "work")
        #expect(aps["sound"] as? String == "chime.caf")
        let plain = try Self.aps(["title": "Hi"])
        for key in ["interruption-level", "relevance-score", "target-content-id", "filter-criteria"] {
            #expect(plain[key] == nil, "\(key) without being asked")
        }
    }

    @Test func aCriticalAlertsSoundIsAPNsDictionaryAtFullVolume() throws {
        let named = try Self.aps(["title": "Smoke detected", "sound": "alarm.caf", "interruption_level": "critical"])
        let sound = try #require(named["sound"] as? [String: Any])
        #expect(sound["critical"] as? Int == 1)
        #expect(sound["name"] as? String == "alarm.caf")
        #expect(sound["volume"] as? Double == 1)
        let unnamed = try Self.aps(["title": "Smoke detected", "interruption_level": "critical"])
        #expect((unnamed["sound"] as? [String: Any])?["name"] as? String == "default")
    }

    @Test func badValuesAndPushesThatShowNothingOrSomethingElseAreRefusedByName() {
        #expect(Self.refusal(["title": "x", "interruption_level": "loud"]).contains("interruption_level must be"))
        #expect(Self.refusal(["title": "x", "relevance_score": 2]).contains("relevance_score must be 0 to 1"))
        #expect(Self.refusal(["title": "x", "relevance_score": -0.1]).contains("relevance_score must be 0 to 1"))
        #expect(Self.refusal(["title": "x", "target_content_id": ""]).contains("target_content_id is empty"))
        #expect(
            Self.refusal(["title": "x", "filter_criteria": String(repeating: "f", count: 257)])
                .contains("filter_criteria is longer than 256"))
        #expect(
            Self.refusal(["push_type": "background", "interruption_level": "passive"])
                .contains("leave out interruption_level"))
        let live = Self.refusal([
            "live_activity": ["event": "update", "content_state": ["a": 1]], "relevance_score": 0.5,
            "audience": ["type": "live_activity", "activity_id": "order-1"],
        ])
        #expect(live.contains("relevance_score does not go with live_activity"), "\(live)")
    }
}

/// An alert whose texts are keys of the app's strings: each key and its values in `aps.alert` as
/// APNs names them, the message's own texts beside them, and what is refused.
@Suite struct AlertLocalizationTests {
    static func alert(_ json: [String: Any]) throws -> [String: Any] {
        try #require(try NotificationPresentationTests.aps(json)["alert"] as? [String: Any])
    }

    @Test func eachKeyAndItsValuesLandInTheAlert() throws {
        let alert = try Self.alert([
            "title": "Order shipped", "title_loc_key": "ORDER_SHIPPED_TITLE", "subtitle_loc_key": "ORDER_SUB",
            "subtitle_loc_args": ["A-1001"], "body_loc_key": "ORDER_SHIPPED_BODY",
            "body_loc_args": ["A-1001", "Tuesday"],
        ])
        #expect(alert["title"] as? String == "Order shipped")
        #expect(alert["title-loc-key"] as? String == "ORDER_SHIPPED_TITLE")
        #expect(alert["title-loc-args"] == nil)
        #expect(alert["subtitle-loc-key"] as? String == "ORDER_SUB")
        #expect(alert["subtitle-loc-args"] as? [String] == ["A-1001"])
        #expect(alert["loc-key"] as? String == "ORDER_SHIPPED_BODY")
        #expect(alert["loc-args"] as? [String] == ["A-1001", "Tuesday"])
        // A key alone is an alert: the device shows the app's string.
        let keyOnly = try Self.alert(["body_loc_key": "WELCOME"])
        #expect(keyOnly["loc-key"] as? String == "WELCOME")
        #expect(keyOnly["title"] == nil && keyOnly["body"] == nil)
    }

    @Test func argumentsWithoutTheirKeyAndPushesThatShowNoAlertAreRefused() {
        let refusal = NotificationPresentationTests.refusal
        #expect(refusal(["title": "x", "body_loc_args": ["1"]]).contains("body_loc_args goes with body_loc_key"))
        #expect(refusal(["subtitle_loc_key": "S"]).contains("needs a title or a body (or their keys"))
        #expect(refusal(["title_loc_key": ""]).contains("title_loc_key is empty"))
        #expect(
            refusal(["title": "x", "body_loc_key": "K", "body_loc_args": Array(repeating: "a", count: 21)])
                .contains("more than 20"))
        #expect(
            refusal(["push_type": "background", "body_loc_key": "K"]).contains("leave out body_loc_key"))
        #expect(refusal(["body_loc_key": "K", "inbox": true]).contains("an inbox copy shows the message's own"))
        let live = refusal([
            "live_activity": ["event": "update", "content_state": ["a": 1]], "title_loc_key": "T",
            "audience": ["type": "live_activity", "activity_id": "order-1"],
        ])
        #expect(live.contains("title_loc_key does not go with live_activity"), "\(live)")
    }
}
