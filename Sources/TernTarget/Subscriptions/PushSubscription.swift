import Foundation
import TernProtocol

/// A push subscription (channel `push`) of a device other than this one's, or of this device under
/// another resource; this device's own subscription is `Tern.shared.push.subscription`'s.
///
/// ```swift
/// PushSubscription(resourceId: 1, provider: "ios-apns", subscriptionId: apnsToken)
/// ```
public struct PushSubscription: Subscription, Equatable {
    static let channelName = SubscriptionChannel.push.rawValue

    public var resourceId: Int
    /// The provider, e.g. `ios-apns`.
    public var provider: String
    /// The push token at the provider.
    public var subscriptionId: String
    public var status: String?
    public var priority: Int?
    public var customFields: [String: JSONValue]?
    public var cats: [String]?
    public var channel: String { Self.channelName }

    /// A subscription of resource `resourceId`; `status` (`subscribed`, `suspended`, `unsubscribed`),
    /// `priority`, `customFields` and `cats` (category names) are sent only when given.
    public init(
        resourceId: Int, provider: String, subscriptionId: String, status: String? = nil, priority: Int? = nil,
        customFields: [String: JSONValue]? = nil, cats: [String]? = nil
    ) {
        self.resourceId = resourceId
        self.provider = provider
        self.subscriptionId = subscriptionId
        self.status = status
        self.priority = priority
        self.customFields = customFields
        self.cats = cats
    }

    public init(from decoder: any Decoder) throws {
        let common = try CommonSubscriptionFields(from: decoder, channels: [Self.channelName])
        let container = try decoder.container(keyedBy: SubscriptionKeys.self)
        self.init(
            resourceId: common.resourceId, provider: try container.decode(String.self, forKey: .provider),
            subscriptionId: try container.decode(String.self, forKey: .subscriptionId), status: common.status,
            priority: common.priority, customFields: common.customFields, cats: common.cats)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: SubscriptionKeys.self)
        try encodeCommon(to: &container)
        try container.encode(provider, forKey: .provider)
        try container.encode(subscriptionId, forKey: .subscriptionId)
    }
}
