import Foundation

/// UTM tags of a goal.
public struct UTM: Codable, Sendable, Equatable {
    /// `utm_campaign`: the advertising campaign.
    public let campaign: String?
    /// `utm_content`: the ad or link that was clicked.
    public let content: String?
    /// `utm_term`: the paid search keyword.
    public let keyword: String?
    /// `utm_medium`: the channel, e.g. `cpc`, `email`.
    public let medium: String?
    /// `utm_source`: where the visit came from, e.g. `google`.
    public let source: String?
    /// A spare UTM value for the app's own use.
    public let temp: String?

    /// UTM tags; every one defaults to nil (not sent).
    ///
    /// - Parameters:
    ///   - campaign: The campaign.
    ///   - content: The content.
    ///   - keyword: The keyword.
    ///   - medium: The medium.
    ///   - source: The source.
    ///   - temp: The spare value.
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
    /// The channel: `email`, `sms`, `push`, `telegram_bot`, `whatsapp`, `viber` or `notify` (a
    /// ``SubscriptionChannel``'s wire name); fixed by the kind of subscription.
    public var channel: String
    /// The platform resource the subscription belongs to (`resource_id`); required.
    public var resourceId: Int
    /// The subscription's status, e.g. `subscribed` or `suspended`.
    public var status: String?
    /// The delivery priority of this subscription.
    public var priority: Int?
    /// Standard and custom subscription fields (`custom_fields`).
    public var customFields: [String: JSONValue]?
    /// The subscription's category names.
    public var cats: [String]?
    /// The recipient's email address; required for `email`.
    public var email: String?
    /// The phone number in international format; required for `sms`.
    public var phone: String?
    /// The push provider, e.g. `ios-apns`; required for `push`.
    public var provider: String?
    /// The subscription's identifier at the provider (the push token; `subscription_id`); required for `push`.
    public var subscriptionId: String?
    /// Channel-specific data (chat id, phone number, tokens; `cc_data`); required for `telegram_bot`,
    /// `whatsapp`, `viber` and `notify`.
    public var ccData: [String: JSONValue]?

    /// A goal's subscription; give the fields its `channel` requires.
    ///
    /// - Parameters:
    ///   - channel: The channel (one of ``SubscriptionChannel``).
    ///   - resourceId: The platform resource.
    ///   - status: The status; default nil.
    ///   - priority: The delivery priority; default nil.
    ///   - customFields: Subscription fields; default nil.
    ///   - cats: Category names; default nil.
    ///   - email: For `email`; default nil.
    ///   - phone: For `sms`; default nil.
    ///   - provider: For `push`; default nil.
    ///   - subscriptionId: For `push`; default nil.
    ///   - ccData: For `telegram_bot`, `whatsapp`, `viber`, `notify`; default nil.
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
    /// The platform's client identifier (`client_id`, the reference's `altcraftClientID`); default "".
    public var clientId: String
    /// The goal's name (`event_name`), e.g. `app_install`; required.
    public var eventName: String
    /// The id of the sent message the goal belongs to (`send_message_id`, the reference's SMID), if any.
    public var sendMessageId: String?
    /// Scalars only.
    public var payload: [String: JSONValue]?
    /// Values with matching types and identifiers.
    public var matching: [String: JSONValue]?
    /// The matching type (`matching_type`).
    public var matchingType: String?
    /// JWT only.
    public var profileFields: [String: JSONValue]?
    /// JWT only.
    public var subscription: GoalSubscription?
    /// The goal's UTM tags.
    public var utm: UTM?
    /// When it happened on the device, in milliseconds since 1970.
    public var time: Int64

    /// Whether `eventName` names an event the server notes itself rather than a goal: one that
    /// starts with `$`, such as `$subscribed` (a device's push subscription became subscribed).
    /// `event/post` refuses such a goal, so an app cannot fake one, and the SDK refuses it at once.
    ///
    /// ```swift
    /// GoalEvent.isReserved("$subscribed")  // true
    /// GoalEvent.isReserved("purchase")     // false
    /// ```
    public static func isReserved(_ eventName: String) -> Bool { eventName.hasPrefix("$") }

    /// A goal.
    ///
    /// - Parameters:
    ///   - sid: The pixel the goal belongs to.
    ///   - clientId: The platform's client identifier; default "".
    ///   - eventName: The goal's name.
    ///   - sendMessageId: The sent message's id; default nil.
    ///   - payload: Scalar goal data; default nil.
    ///   - matching: Matching values; default nil.
    ///   - matchingType: The matching type; default nil.
    ///   - profileFields: Profile fields (JWT only); default nil.
    ///   - subscription: A subscription to add (JWT only); default nil.
    ///   - utm: UTM tags; default nil.
    ///   - time: When it happened on the device, in milliseconds since 1970.
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

/// `event/post`: goals, in a batch, from one device.
///
/// `provider` and `subscriptionId` name the device that sends the batch, as `push/update` and
/// `profile/tags/set` name it: its push provider and token in the caller's resource. They are
/// optional, and go together or not at all. With the rToken alone they are what ties the goals to a
/// person: the profile holding that push subscription in the caller's resource, so that a goal
/// starts and cancels that person's triggered messages. With a JWT the JWT's profile is the goals'
/// person and the device is not looked up.
///
/// ```swift
/// let request = GoalEventRequest(
///     events: [GoalEvent(sid: "pixel-sid", eventName: "cart_abandoned", time: 1_765_000_000_000)],
///     provider: "ios-apns", subscriptionId: deviceToken)
/// ```
public struct GoalEventRequest: Codable, Sendable, Equatable {
    /// The goals, oldest first.
    public var events: [GoalEvent]
    /// The sending device's push provider, e.g. `ios-apns`; sent with ``subscriptionId``.
    public var provider: String?
    /// The sending device's push token (`subscription_id`, as `push/subscribe` named it); sent with
    /// ``provider``.
    public var subscriptionId: String?

    /// A batch of goals.
    ///
    /// - Parameters:
    ///   - events: The goals.
    ///   - provider: The sending device's push provider; default nil (no device named).
    ///   - subscriptionId: The sending device's push token; default nil (no device named).
    public init(events: [GoalEvent], provider: String? = nil, subscriptionId: String? = nil) {
        self.events = events
        self.provider = provider
        self.subscriptionId = subscriptionId
    }

    enum CodingKeys: String, CodingKey {
        case events, provider
        case subscriptionId = "subscription_id"
    }
}
