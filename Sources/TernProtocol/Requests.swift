import Foundation

/// `push/subscribe`, `push/suspend`, `push/unsubscribe`: the endpoint sets the status.
public struct PushSubscriptionRequest: Codable, Sendable, Equatable {
    /// When the app made the call, in milliseconds since 1970: the server keeps the newest change.
    public var time: Int64
    public var provider: String
    /// The push token at the provider.
    public var subscriptionId: String
    /// True: answer with the profile; false: answer as soon as the change is accepted.
    public var sync: Bool
    public var profileFields: [String: JSONValue]?
    public var customFields: [String: JSONValue]?
    public var cats: [CategoryData]?
    public var replace: Bool?
    public var skipTriggers: Bool?

    public init(
        time: Int64, provider: String, subscriptionId: String, sync: Bool = true,
        profileFields: [String: JSONValue]? = nil, customFields: [String: JSONValue]? = nil,
        cats: [CategoryData]? = nil, replace: Bool? = nil, skipTriggers: Bool? = nil
    ) {
        self.time = time
        self.provider = provider
        self.subscriptionId = subscriptionId
        self.sync = sync
        self.profileFields = profileFields
        self.customFields = customFields
        self.cats = cats
        self.replace = replace
        self.skipTriggers = skipTriggers
    }

    enum CodingKeys: String, CodingKey {
        case time, provider, sync, cats, replace
        case subscriptionId = "subscription_id"
        case profileFields = "profile_fields"
        case customFields = "custom_fields"
        case skipTriggers = "skip_triggers"
    }

    /// `sync` may be left out, as the API document says; it defaults to true.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        time = try container.decode(Int64.self, forKey: .time)
        provider = try container.decode(String.self, forKey: .provider)
        subscriptionId = try container.decode(String.self, forKey: .subscriptionId)
        sync = try container.decodeIfPresent(Bool.self, forKey: .sync) ?? true
        profileFields = try container.decodeIfPresent([String: JSONValue].self, forKey: .profileFields)
        customFields = try container.decodeIfPresent([String: JSONValue].self, forKey: .customFields)
        cats = try container.decodeIfPresent([CategoryData].self, forKey: .cats)
        replace = try container.decodeIfPresent(Bool.self, forKey: .replace)
        skipTriggers = try container.decodeIfPresent(Bool.self, forKey: .skipTriggers)
    }
}

/// `push/status`: which subscription to report.
public struct PushStatusRequest: Codable, Sendable, Equatable {
    public enum Mode: String, Codable, Sendable, CaseIterable {
        /// The profile's latest subscription.
        case latest
        /// The subscription of this token and provider.
        case current
        /// The profile's latest subscription with `provider`.
        case latestForProvider = "latest_for_provider"
    }

    public var mode: Mode
    /// The device's current provider: names the profile for rToken requests, and filters for
    /// `current` and `latestForProvider`.
    public var provider: String?
    /// The device's current token.
    public var subscriptionId: String?

    public init(mode: Mode, provider: String? = nil, subscriptionId: String? = nil) {
        self.mode = mode
        self.provider = provider
        self.subscriptionId = subscriptionId
    }

    enum CodingKeys: String, CodingKey {
        case mode, provider
        case subscriptionId = "subscription_id"
    }
}

/// `push/update`: the device's token or provider changed; the subscription keeps its identity.
public struct PushUpdateRequest: Codable, Sendable, Equatable {
    public var oldProvider: String?
    public var oldSubscriptionId: String?
    public var provider: String
    public var subscriptionId: String
    public var customFields: [String: JSONValue]?

    public init(
        oldProvider: String?, oldSubscriptionId: String?, provider: String, subscriptionId: String,
        customFields: [String: JSONValue]? = nil
    ) {
        self.oldProvider = oldProvider
        self.oldSubscriptionId = oldSubscriptionId
        self.provider = provider
        self.subscriptionId = subscriptionId
        self.customFields = customFields
    }

    enum CodingKeys: String, CodingKey {
        case provider
        case oldProvider = "old_provider"
        case oldSubscriptionId = "old_subscription_id"
        case subscriptionId = "subscription_id"
        case customFields = "custom_fields"
    }
}

/// `push/unsuspend` and `profile/authenticate`: the device's current token, if it has one.
public struct PushTokenRequest: Codable, Sendable, Equatable {
    public var provider: String?
    public var subscriptionId: String?

    public init(provider: String?, subscriptionId: String?) {
        self.provider = provider
        self.subscriptionId = subscriptionId
    }

    enum CodingKeys: String, CodingKey {
        case provider
        case subscriptionId = "subscription_id"
    }
}

/// `profile/update` (JWT only).
public struct ProfileUpdateRequest: Codable, Sendable, Equatable {
    public var profileFields: [String: JSONValue]?
    public var skipTriggers: Bool?

    public init(profileFields: [String: JSONValue]?, skipTriggers: Bool? = nil) {
        self.profileFields = profileFields
        self.skipTriggers = skipTriggers
    }

    enum CodingKeys: String, CodingKey {
        case profileFields = "profile_fields"
        case skipTriggers = "skip_triggers"
    }
}

/// `event/push`: deliveries and opens, in a batch.
public struct PushEventRequest: Codable, Sendable, Equatable {
    public enum Kind: String, Codable, Sendable, CaseIterable {
        case delivery
        case open
    }

    public struct Item: Codable, Sendable, Equatable {
        /// The message id from the push's `tern` object.
        public var messageId: String
        public var type: Kind
        /// When it happened on the device, in milliseconds since 1970.
        public var time: Int64

        public init(messageId: String, type: Kind, time: Int64) {
            self.messageId = messageId
            self.type = type
            self.time = time
        }

        enum CodingKeys: String, CodingKey {
            case type, time
            case messageId = "message_id"
        }
    }

    public var events: [Item]

    public init(events: [Item]) { self.events = events }
}
