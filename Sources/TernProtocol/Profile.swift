import Foundation

/// A profile as the server answers it: the profile and the one subscription the request is about.
public struct ProfileData: Codable, Sendable, Equatable {
    public let id: String?
    /// The profile's status, e.g. `subscribed`.
    public let status: String?
    /// The profile's id in the platform's account (`acid`), when the server gives it.
    public let acid: String?
    /// True for a test profile (`is_test`): messages to test devices reach it.
    public let isTest: Bool?
    /// The subscription the request is about (the push one for `push/*`); nil when there is none.
    public let subscription: SubscriptionData?

    /// A profile.
    ///
    /// - Parameters:
    ///   - id: The profile's id.
    ///   - status: Its status.
    ///   - acid: Its account id; default nil.
    ///   - isTest: Whether it is a test profile.
    ///   - subscription: The subscription concerned, or nil.
    public init(
        id: String?, status: String?, acid: String? = nil, isTest: Bool?, subscription: SubscriptionData?
    ) {
        self.id = id
        self.status = status
        self.acid = acid
        self.isTest = isTest
        self.subscription = subscription
    }

    enum CodingKeys: String, CodingKey {
        case id, status, acid, subscription
        case isTest = "is_test"
    }
}

/// A push subscription as the server answers it.
public struct SubscriptionData: Codable, Sendable, Equatable {
    /// The push token at the provider (`subscription_id`).
    public let subscriptionId: String?
    /// A short hash of the subscription (`hash_id`), e.g. `c52b28d2`.
    public let hashId: String?
    /// The provider, e.g. `ios-apns`.
    public let provider: String?
    /// The subscription's status: `subscribed`, `suspended` or `unsubscribed`.
    public let status: String?
    /// The subscription's fields, the automatic ones (`_os`, `_os_ver`, `_device_model`, ...) and custom ones.
    public let fields: [String: JSONValue]?
    /// The subscription's categories, with `title` and `steady` filled in.
    public let cats: [CategoryData]?

    /// A subscription.
    ///
    /// - Parameters:
    ///   - subscriptionId: The push token.
    ///   - hashId: Its short hash.
    ///   - provider: The provider.
    ///   - status: Its status.
    ///   - fields: Its fields.
    ///   - cats: Its categories.
    public init(
        subscriptionId: String?, hashId: String?, provider: String?, status: String?,
        fields: [String: JSONValue]?, cats: [CategoryData]?
    ) {
        self.subscriptionId = subscriptionId
        self.hashId = hashId
        self.provider = provider
        self.status = status
        self.fields = fields
        self.cats = cats
    }

    enum CodingKeys: String, CodingKey {
        case provider, status, fields, cats
        case subscriptionId = "subscription_id"
        case hashId = "hash_id"
    }
}

/// A subscription category. Requests use `name` and `active`; answers also fill `title` and `steady`.
///
/// ```swift
/// let cats = [CategoryData(name: "football", active: true)]
/// ```
public struct CategoryData: Codable, Sendable, Equatable, Hashable {
    /// The category's name, as created on the resource; required in requests.
    public var name: String?
    /// The category's display title; filled in answers, ignored in requests.
    public var title: String?
    /// Whether the category is steady; filled in answers, ignored in requests.
    public var steady: Bool?
    /// Whether the subscription receives this category; used in requests.
    public var active: Bool?

    /// A category; requests need only `name` and `active`.
    ///
    /// - Parameters:
    ///   - name: The category's name; default nil.
    ///   - title: Its title; default nil.
    ///   - steady: Whether it is steady; default nil.
    ///   - active: Whether it is on; default nil.
    public init(name: String? = nil, title: String? = nil, steady: Bool? = nil, active: Bool? = nil) {
        self.name = name
        self.title = title
        self.steady = steady
        self.active = active
    }
}

/// The status a subscription can have.
public enum SubscriptionStatus: String, Codable, Sendable, CaseIterable {
    /// Pushes are delivered.
    case subscribed
    /// Nothing is delivered, but no unsubscribe is recorded in the profile (used on log-in and log-out).
    case suspended
    /// The user unsubscribed: nothing is delivered.
    case unsubscribed
}
