import Foundation
import TernProtocol

/// Bodies of the management API's requests.
public enum AdminRequests {
    public struct CreateProject: Codable, Sendable {
        public var name: String
        public var audience: String?
    }

    public struct CreateDatabase: Codable, Sendable {
        public var name: String
    }

    public struct CreateResource: Codable, Sendable {
        public var projectId: Int64
        public var dbId: Int64?
        public var name: String
        public var channels: [String]?

        enum CodingKeys: String, CodingKey {
            case name, channels
            case projectId = "project_id"
            case dbId = "db_id"
        }
    }

    public struct PutCategory: Codable, Sendable {
        public var title: String?
        public var steady: Bool?
    }

    public struct CreatePixel: Codable, Sendable {
        public var sid: String?
        public var name: String?
    }

    public struct AddJWTKey: Codable, Sendable {
        public var kid: String
        public var algorithm: String
        /// A PEM public key, or the HS256 secret.
        public var key: String
    }
}

/// A resource with its categories.
public struct ResourceView: Codable, Sendable, Equatable {
    public var resource: Resource
    public var categories: [ResourceCategory]

    public func encode(to encoder: any Encoder) throws {
        try resource.encode(to: encoder)
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(categories, forKey: .categories)
    }

    public init(resource: Resource, categories: [ResourceCategory]) {
        self.resource = resource
        self.categories = categories
    }

    public init(from decoder: any Decoder) throws {
        resource = try Resource(from: decoder)
        categories = try decoder.container(keyedBy: Keys.self).decode([ResourceCategory].self, forKey: .categories)
    }

    enum Keys: String, CodingKey { case categories }
}

/// A JWT verification key as the API shows it: never an HS256 secret.
public struct JWTKeyView: Codable, Sendable, Equatable {
    public var projectId: Int64
    public var kid: String
    public var algorithm: String
    /// The PEM public key; absent for HS256.
    public var publicKey: String?
    public var createdAt: Int64

    init(_ record: JWTKeyRecord) {
        projectId = record.projectId
        kid = record.kid
        algorithm = record.algorithm
        publicKey = record.algorithm == "HS256" ? nil : record.key
        createdAt = record.createdAt
    }

    enum CodingKeys: String, CodingKey {
        case kid, algorithm
        case projectId = "project_id"
        case publicKey = "public_key"
        case createdAt = "created_at"
    }
}

/// A subscription as the API shows it.
public struct SubscriptionView: Codable, Sendable, Equatable {
    public var id: Int64
    public var profileId: String
    public var resourceId: Int64
    public var channel: String
    public var provider: String
    public var subscriptionId: String
    public var status: String
    public var hashId: String
    public var fields: [String: JSONValue]
    public var cats: [String: Bool]
    public var priority: Int64?
    public var ccData: [String: JSONValue]?
    public var clientTime: Int64
    public var createdAt: Int64
    public var updatedAt: Int64
    /// The binding's tags (push subscriptions only; set by the SDK's `setTags`).
    public var tags: [String: String]

    init(_ subscription: Subscription, profileId: String, tags: [String: String] = [:]) {
        id = subscription.id
        self.profileId = profileId
        resourceId = subscription.resourceId
        channel = subscription.channel
        provider = subscription.provider
        subscriptionId = subscription.token
        status = subscription.status.rawValue
        hashId = subscription.hashId
        fields = subscription.fields
        cats = subscription.cats
        priority = subscription.priority
        ccData = subscription.ccData
        clientTime = subscription.clientTime
        createdAt = subscription.createdAt
        updatedAt = subscription.updatedAt
        self.tags = tags
    }

    enum CodingKeys: String, CodingKey {
        case id, channel, provider, status, fields, cats, priority, tags
        case profileId = "profile_id"
        case resourceId = "resource_id"
        case subscriptionId = "subscription_id"
        case hashId = "hash_id"
        case ccData = "cc_data"
        case clientTime = "client_time"
        case createdAt = "created_at"
        case updatedAt = "updated_at"
    }
}

/// A profile with its fields and subscriptions.
public struct ProfileView: Codable, Sendable, Equatable {
    public var id: String
    public var dbId: Int64
    public var isTest: Bool
    public var skipTriggers: Bool
    public var createdAt: Int64
    public var updatedAt: Int64
    public var fields: [String: JSONValue]
    public var subscriptions: [SubscriptionView]

    enum CodingKeys: String, CodingKey {
        case id, fields, subscriptions
        case dbId = "db_id"
        case isTest = "is_test"
        case skipTriggers = "skip_triggers"
        case createdAt = "created_at"
        case updatedAt = "updated_at"
    }
}
