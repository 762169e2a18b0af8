import Foundation

/// `push/subscribe`, `push/suspend`, `push/unsubscribe`: the endpoint sets the status.
public struct PushSubscriptionRequest: Codable, Sendable, Equatable {
    /// When the app made the call, in milliseconds since 1970: the server keeps the newest change.
    public var time: Int64
    /// The device's push provider, e.g. `ios-apns`.
    public var provider: String
    /// The push token at the provider.
    public var subscriptionId: String
    /// True: answer with the profile; false: answer as soon as the change is accepted.
    public var sync: Bool
    /// Profile fields to set with the change (`profile_fields`); values may be action-field operations.
    public var profileFields: [String: JSONValue]?
    /// Subscription fields (`custom_fields`): scalars only; the SDK adds the automatic ones.
    public var customFields: [String: JSONValue]?
    /// Categories to change: `name` and `active`.
    public var cats: [CategoryData]?
    /// True: after success, other profiles' subscriptions with this token become `unsubscribed`.
    public var replace: Bool?
    /// True: the profile is ignored by mailing and scenario triggers (`skip_triggers`).
    public var skipTriggers: Bool?
    /// The APNs environment the device's token belongs to (`apns_environment`); nil keeps what the
    /// server has (production for a subscription that never said).
    public var apnsEnvironment: APNsEnvironment?

    /// A status change.
    ///
    /// - Parameters:
    ///   - time: When the app made the call, in milliseconds since 1970.
    ///   - provider: The push provider.
    ///   - subscriptionId: The push token.
    ///   - sync: Whether to answer with the profile; default true.
    ///   - profileFields: Profile fields; default nil.
    ///   - customFields: Subscription fields; default nil.
    ///   - cats: Categories; default nil.
    ///   - replace: Unsubscribe other profiles with this token; default nil.
    ///   - skipTriggers: Skip triggers; default nil.
    ///   - apnsEnvironment: The token's APNs environment; default nil (not said).
    public init(
        time: Int64, provider: String, subscriptionId: String, sync: Bool = true,
        profileFields: [String: JSONValue]? = nil, customFields: [String: JSONValue]? = nil,
        cats: [CategoryData]? = nil, replace: Bool? = nil, skipTriggers: Bool? = nil,
        apnsEnvironment: APNsEnvironment? = nil
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
        self.apnsEnvironment = apnsEnvironment
    }

    enum CodingKeys: String, CodingKey {
        case time, provider, sync, cats, replace
        case subscriptionId = "subscription_id"
        case profileFields = "profile_fields"
        case customFields = "custom_fields"
        case skipTriggers = "skip_triggers"
        case apnsEnvironment = "apns_environment"
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
        apnsEnvironment = try container.decodeIfPresent(APNsEnvironment.self, forKey: .apnsEnvironment)
    }
}

/// `push/status`: which subscription to report.
public struct PushStatusRequest: Codable, Sendable, Equatable {
    /// Which subscription `push/status` reports.
    public enum Mode: String, Codable, Sendable, CaseIterable {
        /// The profile's latest subscription.
        case latest
        /// The subscription of this token and provider.
        case current
        /// The profile's latest subscription with `provider`.
        case latestForProvider = "latest_for_provider"
    }

    /// Which subscription to report.
    public var mode: Mode
    /// The device's current provider: names the profile for rToken requests, and filters for
    /// `current` and `latestForProvider`.
    public var provider: String?
    /// The device's current token.
    public var subscriptionId: String?

    /// A status query.
    ///
    /// - Parameters:
    ///   - mode: Which subscription to report.
    ///   - provider: The device's provider; default nil.
    ///   - subscriptionId: The device's token; default nil.
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
    /// The provider before the change (`old_provider`); nil when the device had no token.
    public var oldProvider: String?
    /// The token before the change (`old_subscription_id`); nil when the device had none.
    public var oldSubscriptionId: String?
    /// The provider now.
    public var provider: String
    /// The token now (`subscription_id`).
    public var subscriptionId: String
    /// Subscription fields to update with the token (`custom_fields`), e.g. the automatic ones.
    public var customFields: [String: JSONValue]?
    /// The APNs environment the new token belongs to (`apns_environment`); nil keeps the subscription's.
    public var apnsEnvironment: APNsEnvironment?

    /// A token change.
    ///
    /// - Parameters:
    ///   - oldProvider: The previous provider, or nil.
    ///   - oldSubscriptionId: The previous token, or nil.
    ///   - provider: The provider now.
    ///   - subscriptionId: The token now.
    ///   - customFields: Subscription fields; default nil.
    ///   - apnsEnvironment: The new token's APNs environment; default nil (not said).
    public init(
        oldProvider: String?, oldSubscriptionId: String?, provider: String, subscriptionId: String,
        customFields: [String: JSONValue]? = nil, apnsEnvironment: APNsEnvironment? = nil
    ) {
        self.oldProvider = oldProvider
        self.oldSubscriptionId = oldSubscriptionId
        self.provider = provider
        self.subscriptionId = subscriptionId
        self.customFields = customFields
        self.apnsEnvironment = apnsEnvironment
    }

    enum CodingKeys: String, CodingKey {
        case provider
        case oldProvider = "old_provider"
        case oldSubscriptionId = "old_subscription_id"
        case subscriptionId = "subscription_id"
        case customFields = "custom_fields"
        case apnsEnvironment = "apns_environment"
    }
}

/// `push/unsuspend` and `profile/authenticate`: the device's current token, if it has one.
public struct PushTokenRequest: Codable, Sendable, Equatable {
    /// The device's provider; nil when it has no token yet.
    public var provider: String?
    /// The device's token (`subscription_id`); nil when it has none yet.
    public var subscriptionId: String?

    /// The device's token, if any.
    ///
    /// - Parameters:
    ///   - provider: The provider, or nil.
    ///   - subscriptionId: The token, or nil.
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
    /// The profile fields to change (`profile_fields`); values may be action-field operations.
    public var profileFields: [String: JSONValue]?
    /// True: the profile is ignored by mailing and scenario triggers (`skip_triggers`).
    public var skipTriggers: Bool?

    /// A profile update.
    ///
    /// - Parameters:
    ///   - profileFields: The fields to change.
    ///   - skipTriggers: Skip triggers; default nil.
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
    /// What happened to a push on the device.
    public enum Kind: String, Codable, Sendable, CaseIterable {
        /// The push reached the device (reported by the Notification Service Extension).
        case delivery
        /// The user opened it.
        case open
    }

    /// One delivery or open.
    public struct Item: Codable, Sendable, Equatable {
        /// The message id from the push's `tern` object.
        public var messageId: String
        /// Delivery or open.
        public var type: Kind
        /// When it happened on the device, in milliseconds since 1970.
        public var time: Int64

        /// A push event.
        ///
        /// - Parameters:
        ///   - messageId: The message id from the push.
        ///   - type: Delivery or open.
        ///   - time: When it happened, in milliseconds since 1970.
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

    /// The events, oldest first.
    public var events: [Item]

    /// A batch of push events.
    ///
    /// - Parameter events: The events.
    public init(events: [Item]) { self.events = events }
}
