import Foundation
import TernProtocol

/// What a subscription row holds besides its id and timestamps: declared once, for a new row
/// (`StoreTransaction.insertSubscription(_:now:)`) and a stored one (``Subscription``). For push,
/// `provider` and `token` (the push token, shown as `subscription_id`) identify the device; for
/// email, SMS and cc-data channels the address goes in `token` and `provider` is empty.
public struct SubscriptionValues: Sendable, Equatable {
    public var profileId: Int64
    public var resourceId: Int64
    public var channel: SubscriptionChannel
    /// A `PushProvider`'s wire name for push, empty for the other channels.
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

    public init(
        profileId: Int64, resourceId: Int64, channel: SubscriptionChannel, provider: String, token: String,
        status: SubscriptionStatus, hashId: String, fields: [String: JSONValue] = [:], cats: [String: Bool] = [:],
        priority: Int64? = nil, ccData: [String: JSONValue]? = nil, clientTime: Int64
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
    }
}

/// A stored subscription of a profile to a resource on one channel: its row id and timestamps
/// around its ``SubscriptionValues``, whose members it shows as its own (`subscription.token`).
/// The API shows it as a `SubscriptionView`.
@dynamicMemberLookup
public struct Subscription: Sendable, Equatable {
    public var id: Int64
    public var values: SubscriptionValues
    public var createdAt: Int64
    public var updatedAt: Int64

    public init(id: Int64, values: SubscriptionValues, createdAt: Int64, updatedAt: Int64) {
        self.id = id
        self.values = values
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    public subscript<Value>(dynamicMember member: WritableKeyPath<SubscriptionValues, Value>) -> Value {
        get { values[keyPath: member] }
        set { values[keyPath: member] = newValue }
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
