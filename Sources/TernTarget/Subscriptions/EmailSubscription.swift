import Foundation
import TernProtocol

/// An email subscription (channel `email`).
///
/// ```swift
/// EmailSubscription(resourceId: 2, email: "ada@example.com", customFields: ["source": "app"])
/// ```
public struct EmailSubscription: Subscription, Equatable {
    static let channelName = SubscriptionChannel.email.rawValue

    public var resourceId: Int
    /// The recipient's address.
    public var email: String
    public var status: String?
    public var priority: Int?
    public var customFields: [String: JSONValue]?
    public var cats: [String]?
    public var channel: String { Self.channelName }

    /// A subscription of resource `resourceId`; `status` (`subscribed`, `suspended`, `unsubscribed`),
    /// `priority`, `customFields` and `cats` (category names) are sent only when given.
    public init(
        resourceId: Int, email: String, status: String? = nil, priority: Int? = nil,
        customFields: [String: JSONValue]? = nil, cats: [String]? = nil
    ) {
        self.resourceId = resourceId
        self.email = email
        self.status = status
        self.priority = priority
        self.customFields = customFields
        self.cats = cats
    }

    public init(from decoder: any Decoder) throws {
        let common = try CommonSubscriptionFields(from: decoder, channels: [Self.channelName])
        let container = try decoder.container(keyedBy: SubscriptionKeys.self)
        self.init(
            resourceId: common.resourceId, email: try container.decode(String.self, forKey: .email),
            status: common.status, priority: common.priority, customFields: common.customFields, cats: common.cats)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: SubscriptionKeys.self)
        try encodeCommon(to: &container)
        try container.encode(email, forKey: .email)
    }
}
