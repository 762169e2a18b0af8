import Foundation
import TernProtocol

/// What a subscription row holds besides its id and timestamps: declared once, for a new row
/// (`StoreTransaction.insertSubscription(_:now:)`) and a stored one (``Subscription``). For push,
/// `provider` and `token` (the push token, shown as `subscription_id`) identify the device; for
/// email, SMS and cc-data channels the address goes in `token` and `provider` is nil (stored empty).
public struct SubscriptionValues: Sendable, Equatable {
    /// The profile the subscription belongs to.
    public var profileId: Int64
    var resourceId: Int64
    var channel: SubscriptionChannel
    /// The push provider for push; nil for the other channels.
    var provider: PushProvider?
    var token: String
    var status: SubscriptionStatus
    /// A short, stable hash of the row, fixed at creation (`hash_id`).
    var hashId: String
    var fields: [String: JSONValue]
    /// Category name → active.
    var cats: [String: Bool]
    var priority: Int64?
    /// cc-data channels' data (`telegram_bot`, `whatsapp`, `viber`, `notify`).
    var ccData: [String: JSONValue]?
    /// The client's `time` of the newest change applied (ms since 1970).
    var clientTime: Int64
    /// The APNs environment the SDK said the token belongs to; nil when it never said (an SDK from
    /// before it did, or a subscription not made by the SDK): the message's `environment` then.
    var apnsEnvironment: APNsEnvironment?
    /// A test device (`is_test`): a message sent with `test: true` goes to these (and to the push
    /// subscriptions of test profiles) only.
    var isTest: Bool

    /// A subscription row's values.
    ///
    /// - Parameters:
    ///   - profileId: The profile it belongs to.
    ///   - resourceId: The resource it subscribes to.
    ///   - channel: `push`, `email`, `sms` or `cc_data`.
    ///   - provider: For push, the provider; nil for the other channels.
    ///   - token: The push token, or the address for the other channels.
    ///   - status: Subscribed, suspended or unsubscribed.
    ///   - hashId: The SDK's hash of the subscription, to recognise it again.
    ///   - fields: Custom fields of the subscription; none by default.
    ///   - cats: Its categories, each on or off; none by default.
    ///   - priority: Its priority among the profile's subscriptions.
    ///   - ccData: Contact-center data, as the SDK sent it.
    ///   - clientTime: When the SDK made the change, by the device's clock.
    ///   - apnsEnvironment: For APNs tokens, the gateway they belong to.
    ///   - isTest: Whether it is a test device (test sends reach only these).
    public init(
        profileId: Int64, resourceId: Int64, channel: SubscriptionChannel, provider: PushProvider?, token: String,
        status: SubscriptionStatus, hashId: String, fields: [String: JSONValue] = [:], cats: [String: Bool] = [:],
        priority: Int64? = nil, ccData: [String: JSONValue]? = nil, clientTime: Int64,
        apnsEnvironment: APNsEnvironment? = nil, isTest: Bool = false
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
        self.apnsEnvironment = apnsEnvironment
        self.isTest = isTest
    }
}

/// A stored subscription of a profile to a resource on one channel: its row id and timestamps
/// around its ``SubscriptionValues``, whose members it shows as its own (`subscription.token`).
/// The API shows it as a `SubscriptionView`.
@dynamicMemberLookup
public struct Subscription: Sendable, Equatable {
    public var id: Int64
    var values: SubscriptionValues
    var createdAt: Int64
    var updatedAt: Int64

    /// The subscription's values as its own properties: `subscription.token` reads and writes
    /// `subscription.values.token`.
    ///
    /// - Parameter member: The property of ``SubscriptionValues``.
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

extension Subscription {
    /// One device of a push audience, for counting devices once however many profiles hold it.
    var deviceKey: String { "\(self.provider?.rawValue ?? "") \(self.token)" }
}

extension SubscriptionChannel {
    /// Push, and ActivityKit's tokens: rows whose `provider` is a push provider's and whose token
    /// the delivery engine sends to.
    var carriesPushToken: Bool { self == .push || Self.liveActivities.contains(self) }

    /// The text of a subscription row's `provider` column: the push provider's wire name for push,
    /// `inapp` for in-app subscriptions, empty for the other channels (as rows have always been
    /// written: the unique (resource, channel, provider, token) key and `hash_id` depend on it).
    func storedProvider(_ provider: PushProvider?) -> String {
        if let provider { return provider.rawValue }
        return self == .inapp ? "inapp" : ""
    }
}

extension PushProvider {
    /// The provider a stored subscription row names: nil for the channels other than push; a push
    /// row whose name Tern does not know is a damaged row, reported as such rather than read as
    /// some provider.
    static func stored(_ name: String, channel: SubscriptionChannel) throws -> PushProvider? {
        guard channel.carriesPushToken else { return nil }
        return try storedPush(name)
    }

    /// The provider of a push row (a subscription's, a delivery's, an invalid token's).
    static func storedPush(_ name: String) throws -> PushProvider {
        guard let provider = PushProvider(rawValue: name) else {
            throw StoreError.backend("a stored row has the unknown push provider \"\(name.prefix(32))\"")
        }
        return provider
    }
}
