import Foundation
import TernProtocol

/// A subscription on a messenger channel: `telegram_bot`, `whatsapp`, `viber` or `notify`, with the
/// channel's own data (a chat id, a phone number, a token).
///
/// ```swift
/// CcDataSubscription(resourceId: 4, channel: "telegram_bot", ccData: ["chat_id": "123456789"])
/// ```
public struct CcDataSubscription: Subscription, Equatable {
    /// The channels this type covers.
    public static let channels: Set<String> = Set(SubscriptionChannel.ccData.map(\.rawValue))

    public var resourceId: Int
    /// One of ``channels``; `sendTarget` refuses any other.
    public var channel: String
    /// The channel's data.
    public var ccData: [String: JSONValue]
    public var status: String?
    public var priority: Int?
    public var customFields: [String: JSONValue]?
    public var cats: [String]?

    /// A subscription of resource `resourceId`; `status` (`subscribed`, `suspended`, `unsubscribed`),
    /// `priority`, `customFields` and `cats` (category names) are sent only when given.
    public init(
        resourceId: Int, channel: String, ccData: [String: JSONValue], status: String? = nil, priority: Int? = nil,
        customFields: [String: JSONValue]? = nil, cats: [String]? = nil
    ) {
        self.resourceId = resourceId
        self.channel = channel
        self.ccData = ccData
        self.status = status
        self.priority = priority
        self.customFields = customFields
        self.cats = cats
    }

    public init(from decoder: any Decoder) throws {
        let common = try CommonSubscriptionFields(from: decoder, channels: Self.channels)
        let container = try decoder.container(keyedBy: SubscriptionKeys.self)
        self.init(
            resourceId: common.resourceId, channel: try container.decode(String.self, forKey: .channel),
            ccData: try container.decode([String: JSONValue].self, forKey: .ccData), status: common.status,
            priority: common.priority, customFields: common.customFields, cats: common.cats)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: SubscriptionKeys.self)
        try encodeCommon(to: &container)
        try container.encode(ccData, forKey: .ccData)
    }
}
