import Foundation
import TernProtocol

/// A subscription of a profile to a resource on one channel. For push, `provider` and `token`
/// (the push token, shown as `subscription_id`) identify the device; for email, SMS and cc-data
/// channels the address goes in `token` and `provider` is empty. The API shows it as a
/// `SubscriptionView`.
public struct Subscription: Sendable, Equatable {
    public var id: Int64
    public var profileId: Int64
    public var resourceId: Int64
    public var channel: SubscriptionChannel
    /// A ``PushProvider``'s wire name for push, empty for the other channels.
    public var provider: String
    public var token: String
    public var status: SubscriptionStatus
    /// A short, stable hash of the row, fixed at creation (`hash_id`).
    public var hashId: String
    public var fields: [String: JSONValue]
    /// Category name → active.
    public var cats: [String: Bool]
    public var priority: Int64?
    /// cc-data channels' data (`telegram_bot`, `whatsapp`, `viber`, `notify`).
    public var ccData: [String: JSONValue]?
    /// The client's `time` of the newest change applied (ms since 1970).
    public var clientTime: Int64
    public var createdAt: Int64
    public var updatedAt: Int64

    public init(
        id: Int64, profileId: Int64, resourceId: Int64, channel: SubscriptionChannel, provider: String, token: String,
        status: SubscriptionStatus, hashId: String, fields: [String: JSONValue] = [:], cats: [String: Bool] = [:],
        priority: Int64? = nil, ccData: [String: JSONValue]? = nil, clientTime: Int64, createdAt: Int64,
        updatedAt: Int64
    ) {
        self.id = id
        self.profileId = profileId
        self.resourceId = resourceId
        self.channel = channel
        self.provider = provider
        self.token = token
        self.status = status
        self.hashId = hashId
        self.fields = fields
        self.cats = cats
        self.priority = priority
        self.ccData = ccData
        self.clientTime = clientTime
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}

/// What a new subscription row needs; the store assigns the id.
public struct NewSubscription: Sendable, Equatable {
    public var profileId: Int64
    public var resourceId: Int64
    public var channel: SubscriptionChannel
    public var provider: String
    public var token: String
    public var status: SubscriptionStatus
    public var hashId: String
    public var fields: [String: JSONValue]
    public var cats: [String: Bool]
    public var priority: Int64?
    public var ccData: [String: JSONValue]?
    public var clientTime: Int64
    public var now: Int64

    public init(
        profileId: Int64, resourceId: Int64, channel: SubscriptionChannel, provider: String, token: String,
        status: SubscriptionStatus, hashId: String, fields: [String: JSONValue] = [:], cats: [String: Bool] = [:],
        priority: Int64? = nil, ccData: [String: JSONValue]? = nil, clientTime: Int64, now: Int64
    ) {
        self.profileId = profileId
        self.resourceId = resourceId
        self.channel = channel
        self.provider = provider
        self.token = token
        self.status = status
        self.hashId = hashId
        self.fields = fields
        self.cats = cats
        self.priority = priority
        self.ccData = ccData
        self.clientTime = clientTime
        self.now = now
    }
}

extension SubscriptionChannel {
    /// The channel a stored row names; only known channels are ever written, so another is a
    /// damaged row, reported as such rather than read as some channel.
    static func stored(_ name: String) throws -> SubscriptionChannel {
        guard let channel = SubscriptionChannel(rawValue: name) else {
            throw StoreError.backend("a stored subscription has the unknown channel \"\(name.prefix(32))\"")
        }
        return channel
    }
}
