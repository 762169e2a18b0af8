import Foundation

/// UTM tags of a goal.
public struct UTM: Codable, Sendable, Equatable {
    public let campaign: String?
    public let content: String?
    public let keyword: String?
    public let medium: String?
    public let source: String?
    public let temp: String?

    public init(
        campaign: String? = nil, content: String? = nil, keyword: String? = nil, medium: String? = nil,
        source: String? = nil, temp: String? = nil
    ) {
        self.campaign = campaign
        self.content = content
        self.keyword = keyword
        self.medium = medium
        self.source = source
        self.temp = temp
    }
}

/// A subscription carried by a goal, flattened on the wire; `channel` says which fields apply:
/// `email` (email), `sms` (phone), `push` (provider, subscription_id), or `telegram_bot`,
/// `whatsapp`, `viber`, `notify` (cc_data). `channel` stays text on the wire so that an unknown one
/// is refused with a reason; ``SubscriptionChannel`` is the list of known ones.
public struct GoalSubscription: Codable, Sendable, Equatable {
    public var channel: String
    public var resourceId: Int
    public var status: String?
    public var priority: Int?
    public var customFields: [String: JSONValue]?
    public var cats: [String]?
    public var email: String?
    public var phone: String?
    public var provider: String?
    public var subscriptionId: String?
    public var ccData: [String: JSONValue]?

    public init(
        channel: String, resourceId: Int, status: String? = nil, priority: Int? = nil,
        customFields: [String: JSONValue]? = nil, cats: [String]? = nil, email: String? = nil,
        phone: String? = nil, provider: String? = nil, subscriptionId: String? = nil,
        ccData: [String: JSONValue]? = nil
    ) {
        self.channel = channel
        self.resourceId = resourceId
        self.status = status
        self.priority = priority
        self.customFields = customFields
        self.cats = cats
        self.email = email
        self.phone = phone
        self.provider = provider
        self.subscriptionId = subscriptionId
        self.ccData = ccData
    }

    enum CodingKeys: String, CodingKey {
        case channel, status, priority, cats, email, phone, provider
        case resourceId = "resource_id"
        case customFields = "custom_fields"
        case subscriptionId = "subscription_id"
        case ccData = "cc_data"
    }
}

/// One goal (mobile event) for `event/post`.
public struct GoalEvent: Codable, Sendable, Equatable {
    /// The pixel the goal belongs to.
    public var sid: String
    public var clientId: String
    public var eventName: String
    public var sendMessageId: String?
    /// Scalars only.
    public var payload: [String: JSONValue]?
    public var matching: [String: JSONValue]?
    public var matchingType: String?
    /// JWT only.
    public var profileFields: [String: JSONValue]?
    /// JWT only.
    public var subscription: GoalSubscription?
    public var utm: UTM?
    /// When it happened on the device, in milliseconds since 1970.
    public var time: Int64

    public init(
        sid: String, clientId: String = "", eventName: String, sendMessageId: String? = nil,
        payload: [String: JSONValue]? = nil, matching: [String: JSONValue]? = nil, matchingType: String? = nil,
        profileFields: [String: JSONValue]? = nil, subscription: GoalSubscription? = nil, utm: UTM? = nil,
        time: Int64
    ) {
        self.sid = sid
        self.clientId = clientId
        self.eventName = eventName
        self.sendMessageId = sendMessageId
        self.payload = payload
        self.matching = matching
        self.matchingType = matchingType
        self.profileFields = profileFields
        self.subscription = subscription
        self.utm = utm
        self.time = time
    }

    enum CodingKeys: String, CodingKey {
        case sid, payload, matching, subscription, utm, time
        case clientId = "client_id"
        case eventName = "event_name"
        case sendMessageId = "send_message_id"
        case matchingType = "matching_type"
        case profileFields = "profile_fields"
    }

    /// `client_id` may be left out, as the API document says; it defaults to "".
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        sid = try container.decode(String.self, forKey: .sid)
        clientId = try container.decodeIfPresent(String.self, forKey: .clientId) ?? ""
        eventName = try container.decode(String.self, forKey: .eventName)
        sendMessageId = try container.decodeIfPresent(String.self, forKey: .sendMessageId)
        payload = try container.decodeIfPresent([String: JSONValue].self, forKey: .payload)
        matching = try container.decodeIfPresent([String: JSONValue].self, forKey: .matching)
        matchingType = try container.decodeIfPresent(String.self, forKey: .matchingType)
        profileFields = try container.decodeIfPresent([String: JSONValue].self, forKey: .profileFields)
        subscription = try container.decodeIfPresent(GoalSubscription.self, forKey: .subscription)
        utm = try container.decodeIfPresent(UTM.self, forKey: .utm)
        time = try container.decode(Int64.self, forKey: .time)
    }
}

/// `event/post`: goals, in a batch.
public struct GoalEventRequest: Codable, Sendable, Equatable {
    public var events: [GoalEvent]

    public init(events: [GoalEvent]) { self.events = events }
}
