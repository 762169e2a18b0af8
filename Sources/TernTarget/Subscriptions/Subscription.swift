import Foundation
import TernProtocol

/// A subscription a goal adds to the profile (JWT only), on one channel. Encoded polymorphically:
/// `channel` says which type it is, keys are snake_case (`resource_id`, `custom_fields`, …), and
/// ``AnySubscription`` decodes any of them back.
///
/// ```swift
/// Tern.shared.target.sendTarget(
///     sid: "pixel-sid", eventName: "newsletter",
///     subscription: EmailSubscription(resourceId: 2, email: "ada@example.com", cats: ["news"]))
/// ```
public protocol Subscription: Codable, Sendable {
    /// The resource the subscription belongs to.
    var resourceId: Int { get }
    /// `subscribed`, `suspended` or `unsubscribed`; nil leaves it to the server (a new subscription is subscribed).
    var status: String? { get }
    /// The subscription's delivery priority.
    var priority: Int? { get }
    /// The subscription's fields: scalars only.
    var customFields: [String: JSONValue]? { get }
    /// Category names.
    var cats: [String]? { get }
    /// The channel: `email`, `sms`, `push`, or a cc-data channel.
    var channel: String { get }
}

/// Keys every subscription type shares on the wire.
enum SubscriptionKeys: String, CodingKey {
    case channel, status, priority, cats, email, phone, provider
    case resourceId = "resource_id"
    case customFields = "custom_fields"
    case subscriptionId = "subscription_id"
    case ccData = "cc_data"
}

extension Subscription {
    /// Writes the fields every type shares (the type writes its own).
    func encodeCommon(to container: inout KeyedEncodingContainer<SubscriptionKeys>) throws {
        try container.encode(channel, forKey: .channel)
        try container.encode(resourceId, forKey: .resourceId)
        try container.encodeIfPresent(status, forKey: .status)
        try container.encodeIfPresent(priority, forKey: .priority)
        try container.encodeIfPresent(customFields, forKey: .customFields)
        try container.encodeIfPresent(cats, forKey: .cats)
    }
}

/// The fields every type shares, read from a decoder.
struct CommonSubscriptionFields {
    let resourceId: Int
    let status: String?
    let priority: Int?
    let customFields: [String: JSONValue]?
    let cats: [String]?

    /// Reads the common fields after checking that `channel` is one of `channels`.
    init(from decoder: any Decoder, channels: Set<String>) throws {
        let container = try decoder.container(keyedBy: SubscriptionKeys.self)
        let channel = try container.decode(String.self, forKey: .channel)
        guard channels.contains(channel) else {
            throw DecodingError.dataCorruptedError(
                forKey: .channel, in: container,
                debugDescription: "channel \"\(channel)\" is not one of \(channels.sorted().joined(separator: ", "))")
        }
        resourceId = try container.decode(Int.self, forKey: .resourceId)
        status = try container.decodeIfPresent(String.self, forKey: .status)
        priority = try container.decodeIfPresent(Int.self, forKey: .priority)
        customFields = try container.decodeIfPresent([String: JSONValue].self, forKey: .customFields)
        cats = try container.decodeIfPresent([String].self, forKey: .cats)
    }
}

/// Any ``Subscription``, decoded by its `channel`.
///
/// ```swift
/// let decoded = try JSONDecoder().decode(AnySubscription.self, from: data)
/// if let email = decoded.base as? EmailSubscription { print(email.email) }
/// ```
public struct AnySubscription: Codable, Sendable {
    /// The subscription itself: an ``EmailSubscription``, ``SmsSubscription``, ``PushSubscription``
    /// or ``CcDataSubscription``.
    public let base: any Subscription

    /// Wraps `base`, to encode it with its `channel`.
    public init(_ base: any Subscription) {
        self.base = base
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: SubscriptionKeys.self)
        let channel = try container.decode(String.self, forKey: .channel)
        switch channel {
        case EmailSubscription.channelName: base = try EmailSubscription(from: decoder)
        case SmsSubscription.channelName: base = try SmsSubscription(from: decoder)
        case PushSubscription.channelName: base = try PushSubscription(from: decoder)
        case _ where CcDataSubscription.channels.contains(channel): base = try CcDataSubscription(from: decoder)
        default:
            throw DecodingError.dataCorruptedError(
                forKey: .channel, in: container,
                debugDescription: "unknown subscription channel \"\(channel)\": use email, sms, push, "
                    + CcDataSubscription.channels.sorted().joined(separator: ", "))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        try base.encode(to: encoder)
    }
}
