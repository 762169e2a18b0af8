import Foundation
import TernHTTP
import TernSDKTestKit
import TernTestSupport

@testable import TernInApp

/// Placements as the server answers them, for the engine's tests.
enum Fixtures {
    static func placement(
        _ id: String, smid: String? = nil, priority: Int = 0, anonymous: Bool = true, audience: Bool? = nil,
        triggers: [[String: Any]] = [["type": "custom", "name": "go"]], caps: [String: Any] = [:],
        displayType: String = "modal", content: [String: Any]? = nil, startsAt: String? = nil, endsAt: String? = nil
    ) -> [String: Any] {
        var placement: [String: Any] = [
            "smid": smid ?? "\(id).0123456789abcdef", "campaign_id": id, "display_type": displayType,
            "priority": priority, "anonymous": anonymous, "triggers": triggers, "caps": caps,
            "starts_at": startsAt.map { $0 as Any } ?? NSNull(), "ends_at": endsAt.map { $0 as Any } ?? NSNull(),
            "content": content ?? template(),
        ]
        if let audience { placement["audience"] = audience }
        return placement
    }

    static func template(
        title: String = "Hello", imageURL: String? = nil, buttons: [[String: Any]] = [button("ok", "close")]
    ) -> [String: Any] {
        [
            "kind": "template",
            "template": [
                "title": title, "body": "Body", "image_url": imageURL.map { $0 as Any } ?? NSNull(), "buttons": buttons,
            ],
        ]
    }

    static func button(_ id: String, _ type: String, value: String? = nil, name: String? = nil) -> [String: Any] {
        [
            "id": id, "text": id.capitalized,
            "action": [
                "type": type, "value": value.map { $0 as Any } ?? NSNull(), "name": name.map { $0 as Any } ?? NSNull(),
            ],
        ]
    }

    static func answer(
        _ placements: [[String: Any]], projectCaps: [String: Any] = [:], status: String? = "subscribed"
    ) -> Data {
        let data: [String: Any] = [
            "placements": placements, "project_caps": projectCaps, "fetched_at": "2026-12-01T08:30:00Z",
            "inapp_status": status.map { $0 as Any } ?? NSNull(),
        ]
        let envelope: [String: Any] = ["error": 0, "error_text": "", "profile": NSNull(), "data": data]
        return try! JSONSerialization.data(withJSONObject: envelope)
    }

    static func response(
        _ placements: [[String: Any]], projectCaps: [String: Any] = [:], status: String? = "subscribed"
    ) -> HTTPResponse {
        .json(200, answer(placements, projectCaps: projectCaps, status: status))
    }

    static func campaigns(_ placements: [[String: Any]], max: Int = 100) -> [InAppCampaign] {
        PlacementsAnswer.read(answer(placements), maxPlacements: max)?.campaigns ?? []
    }
}
