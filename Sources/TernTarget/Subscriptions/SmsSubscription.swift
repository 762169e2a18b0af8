import Foundation
import TernProtocol

/// An SMS subscription (channel `sms`).
///
/// ```swift
/// SmsSubscription(resourceId: 3, phone: "+351912345678")
/// ```
public struct SmsSubscription: Subscription, Equatable {
    static let channelName = SubscriptionChannel.sms.rawValue

    public var resourceId: Int
    /// The phone number, in international format.
    public var phone: String
    public var status: String?
    public var priority: Int?
    public var customFields: [String: JSONValue]?
    public var cats: [String]?
    public var channel: String { Self.channelName }

    /// A subscription of resource `resourceId`; `status` (`subscribed`, `suspended`, `unsubscribed`),
    /// `priority`, `customFields` and `cats` (category names) are sent only when given.
    public init(
        resourceId: Int, phone: String, status: String? = nil, priority: Int? = nil,
        customFields: [String: JSONValue]? = nil, cats: [String]? = nil
    ) {
        self.resourceId = resourceId
        self.phone = phone
        self.status = status
        self.priority = priority
        self.customFields = customFields
        self.cats = cats
    }

    public init(from decoder: any Decoder) throws {
        let common = try CommonSubscriptionFields(from: decoder, channels: [Self.channelName])
        let container = try decoder.container(keyedBy: SubscriptionKeys.self)
        self.init(
            resourceId: common.resourceId, phone: try container.decode(String.self, forKey: .phone),
            status: common.status, priority: common.priority, customFields: common.customFields, cats: common.cats)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: SubscriptionKeys.self)
        try encodeCommon(to: &container)
        try container.encode(phone, forKey: .phone)
    }
}
