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
