import Foundation
import TernProtocol

/// `push/subscribe`'s body as the API document describes it: `sync` may be left out (it defaults to
/// true), which TernProtocol's synthesized decoding does not allow.
struct PushSubscriptionBody: Decodable, Sendable {
    let request: PushSubscriptionRequest

    private enum Keys: String, CodingKey {
        case time, provider, sync, cats, replace
        case subscriptionId = "subscription_id"
        case profileFields = "profile_fields"
        case customFields = "custom_fields"
        case skipTriggers = "skip_triggers"
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        request = PushSubscriptionRequest(
            time: try container.decode(Int64.self, forKey: .time),
            provider: try container.decode(String.self, forKey: .provider),
            subscriptionId: try container.decode(String.self, forKey: .subscriptionId),
            sync: try container.decodeIfPresent(Bool.self, forKey: .sync) ?? true,
            profileFields: try container.decodeIfPresent([String: JSONValue].self, forKey: .profileFields),
            customFields: try container.decodeIfPresent([String: JSONValue].self, forKey: .customFields),
            cats: try container.decodeIfPresent([CategoryData].self, forKey: .cats),
            replace: try container.decodeIfPresent(Bool.self, forKey: .replace),
            skipTriggers: try container.decodeIfPresent(Bool.self, forKey: .skipTriggers))
    }
}
