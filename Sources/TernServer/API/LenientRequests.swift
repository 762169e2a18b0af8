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

/// `event/post`'s body as the API document describes it: a goal's `client_id` may be left out
/// (it defaults to ""), which TernProtocol's synthesized decoding does not allow.
struct GoalEventBody: Decodable, Sendable {
    let request: GoalEventRequest

    private struct Event: Decodable {
        let event: GoalEvent

        private enum Keys: String, CodingKey {
            case sid, payload, matching, subscription, utm, time
            case clientId = "client_id"
            case eventName = "event_name"
            case sendMessageId = "send_message_id"
            case matchingType = "matching_type"
            case profileFields = "profile_fields"
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Keys.self)
            event = GoalEvent(
                sid: try container.decode(String.self, forKey: .sid),
                clientId: try container.decodeIfPresent(String.self, forKey: .clientId) ?? "",
                eventName: try container.decode(String.self, forKey: .eventName),
                sendMessageId: try container.decodeIfPresent(String.self, forKey: .sendMessageId),
                payload: try container.decodeIfPresent([String: JSONValue].self, forKey: .payload),
                matching: try container.decodeIfPresent([String: JSONValue].self, forKey: .matching),
                matchingType: try container.decodeIfPresent(String.self, forKey: .matchingType),
                profileFields: try container.decodeIfPresent([String: JSONValue].self, forKey: .profileFields),
                subscription: try container.decodeIfPresent(GoalSubscription.self, forKey: .subscription),
                utm: try container.decodeIfPresent(UTM.self, forKey: .utm),
                time: try container.decode(Int64.self, forKey: .time))
        }
    }

    private enum Keys: String, CodingKey { case events }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        request = GoalEventRequest(events: try container.decode([Event].self, forKey: .events).map(\.event))
    }
}
