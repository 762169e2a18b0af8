import Foundation
import TernProtocol

/// Bodies of the management API's requests.
enum AdminRequests {
    struct CreateProject: Codable, Sendable {
        var name: String
        var audience: String?
    }

    struct CreateDatabase: Codable, Sendable {
        var name: String
    }

    struct CreateResource: Codable, Sendable {
        var projectId: Int64
        var dbId: Int64?
        var name: String
        var channels: [String]?

        enum CodingKeys: String, CodingKey {
            case name, channels
            case projectId = "project_id"
            case dbId = "db_id"
        }
    }

    struct PutCategory: Codable, Sendable {
        var title: String?
        var steady: Bool?
    }

    struct CreatePixel: Codable, Sendable {
        var sid: String?
        var name: String?
    }

    struct AddJWTKey: Codable, Sendable {
        var kid: String
        var algorithm: String
        /// A PEM public key, or the HS256 secret.
        var key: String
    }
}

/// A resource with its categories.
struct ResourceView: Codable, Sendable, Equatable {
    var resource: Resource
    var categories: [ResourceCategory]

    func encode(to encoder: any Encoder) throws {
        try resource.encode(to: encoder)
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(categories, forKey: .categories)
    }

    init(resource: Resource, categories: [ResourceCategory]) {
        self.resource = resource
        self.categories = categories
    }

    init(from decoder: any Decoder) throws {
        resource = try Resource(from: decoder)
        categories = try decoder.container(keyedBy: Keys.self).decode([ResourceCategory].self, forKey: .categories)
    }

    enum Keys: String, CodingKey { case categories }
}

/// A JWT verification key as the API shows it: never an HS256 secret. The stored
/// ``JWTKeyRecord`` holds the fields; this says which of them the API shows and under which names.
struct JWTKeyView: Encodable, Sendable, Equatable {
    var record: JWTKeyRecord

    init(_ record: JWTKeyRecord) { self.record = record }

    /// The PEM public key; absent for HS256, whose key is the shared secret.
    var publicKey: String? { record.algorithm == "HS256" ? nil : record.key }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(record.projectId, forKey: .projectId)
        try container.encode(record.kid, forKey: .kid)
        try container.encode(record.algorithm, forKey: .algorithm)
        try container.encodeIfPresent(publicKey, forKey: .publicKey)
        try container.encode(record.createdAt, forKey: .createdAt)
    }

    enum CodingKeys: String, CodingKey {
        case kid, algorithm
        case projectId = "project_id"
        case publicKey = "public_key"
        case createdAt = "created_at"
    }
}

/// A subscription as the API shows it: the stored ``Subscription`` (whose token is shown as
/// `subscription_id`), with its profile's public id instead of the row id, and its tags.
struct SubscriptionView: Encodable, Sendable, Equatable {
    var subscription: Subscription
    /// The profile's public id (`profile.id` on the wire).
    var profileId: String
    /// The binding's tags (push subscriptions only; set by the SDK's `setTags`).
    var tags: [String: String]

    init(_ subscription: Subscription, profileId: String, tags: [String: String] = [:]) {
        self.subscription = subscription
        self.profileId = profileId
        self.tags = tags
    }

    func encode(to encoder: any Encoder) throws {
        let s = subscription
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(s.id, forKey: .id)
        try container.encode(profileId, forKey: .profileId)
        try container.encode(s.resourceId, forKey: .resourceId)
        try container.encode(s.channel, forKey: .channel)
        try container.encode(s.channel.storedProvider(s.provider), forKey: .provider)
        try container.encode(s.token, forKey: .subscriptionId)
        try container.encode(s.status, forKey: .status)
        try container.encode(s.hashId, forKey: .hashId)
        try container.encode(s.fields, forKey: .fields)
        try container.encode(s.cats, forKey: .cats)
        try container.encodeIfPresent(s.priority, forKey: .priority)
        try container.encodeIfPresent(s.ccData, forKey: .ccData)
        try container.encode(s.clientTime, forKey: .clientTime)
        try container.encode(s.createdAt, forKey: .createdAt)
        try container.encode(s.updatedAt, forKey: .updatedAt)
        try container.encode(tags, forKey: .tags)
        try container.encodeIfPresent(s.apnsEnvironment, forKey: .apnsEnvironment)
        try container.encode(s.isTest, forKey: .isTest)
    }

    enum CodingKeys: String, CodingKey {
        case id, channel, provider, status, fields, cats, priority, tags
        case apnsEnvironment = "apns_environment"
        case isTest = "is_test"
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

/// A profile with its fields and subscriptions: the stored ``Profile`` shown by its public id
/// (the row id stays inside the store).
struct ProfileView: Encodable, Sendable, Equatable {
    var profile: Profile
    var fields: [String: JSONValue]
    var subscriptions: [SubscriptionView]
    /// The hour of day (UTC) in which the person opened the most pushes; nil before a counted open.
    var usualOpenHour: Int? = nil

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(profile.publicId, forKey: .id)
        try container.encode(profile.dbId, forKey: .dbId)
        try container.encode(profile.isTest, forKey: .isTest)
        try container.encode(profile.skipTriggers, forKey: .skipTriggers)
        try container.encode(profile.createdAt, forKey: .createdAt)
        try container.encode(profile.updatedAt, forKey: .updatedAt)
        try container.encode(fields, forKey: .fields)
        try container.encode(subscriptions, forKey: .subscriptions)
        try container.encodeIfPresent(usualOpenHour, forKey: .usualOpenHour)
    }

    enum CodingKeys: String, CodingKey {
        case id, fields, subscriptions
        case dbId = "db_id"
        case isTest = "is_test"
        case skipTriggers = "skip_triggers"
        case createdAt = "created_at"
        case updatedAt = "updated_at"
        case usualOpenHour = "usual_open_hour"
    }
}
