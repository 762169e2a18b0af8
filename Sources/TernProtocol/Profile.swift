import Foundation

/// A profile as the server answers it: the profile and the one subscription the request is about.
public struct ProfileData: Codable, Sendable, Equatable {
    public let id: String?
    public let status: String?
    public let acid: String?
    public let isTest: Bool?
    public let subscription: SubscriptionData?

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
    public let subscriptionId: String?
    public let hashId: String?
    public let provider: String?
    public let status: String?
    public let fields: [String: JSONValue]?
    public let cats: [CategoryData]?

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
    public var name: String?
    public var title: String?
    public var steady: Bool?
    public var active: Bool?

    public init(name: String? = nil, title: String? = nil, steady: Bool? = nil, active: Bool? = nil) {
        self.name = name
        self.title = title
        self.steady = steady
        self.active = active
    }
}

/// The status a subscription can have.
public enum SubscriptionStatus: String, Codable, Sendable, CaseIterable {
    case subscribed
    case suspended
    case unsubscribed
}
