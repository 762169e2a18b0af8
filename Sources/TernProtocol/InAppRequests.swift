import Foundation

// The in-app wire's requests and answers (docs/inapp.md): `inapp/subscribe`, `inapp/status`,
// `inapp/placements` and `inapp/event`, each naming the device by its push identity.

/// The device's push identity, which names the profile of an rToken request (both or neither).
public protocol InAppIdentified {
    /// The device's push provider (`ios-apns`, `ios-firebase`, `ios-huawei`).
    var provider: String? { get }
    /// The device's push token.
    var subscriptionId: String? { get }
}

/// `inapp/subscribe` and `inapp/unsubscribe`: the fields of `push/subscribe`, the token optional.
public struct InAppSubscriptionRequest: Codable, Sendable, Equatable, InAppIdentified {
    /// When the app made the call (ms since 1970).
    public var time: Int64
    public var provider: String?
    public var subscriptionId: String?
    /// True: the answer carries the profile.
    public var sync: Bool
    /// Profile fields to set, as `push/subscribe` takes them.
    public var profileFields: [String: JSONValue]?
    /// The in-app subscription's custom fields (scalars).
    public var customFields: [String: JSONValue]?
    /// The in-app subscription's categories.
    public var cats: [CategoryData]?
    /// True: the other profiles holding this push token lose their in-app subscription.
    public var replace: Bool?
    /// True: the profile is left out of scenario triggers.
    public var skipTriggers: Bool?

    /// Creates the value from its fields.
    public init(
        time: Int64, provider: String? = nil, subscriptionId: String? = nil, sync: Bool = true,
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

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        time = try c.decode(Int64.self, forKey: .time)
        provider = try c.decodeIfPresent(String.self, forKey: .provider)
        subscriptionId = try c.decodeIfPresent(String.self, forKey: .subscriptionId)
        sync = try c.decodeIfPresent(Bool.self, forKey: .sync) ?? true
        profileFields = try c.decodeIfPresent([String: JSONValue].self, forKey: .profileFields)
        customFields = try c.decodeIfPresent([String: JSONValue].self, forKey: .customFields)
        cats = try c.decodeIfPresent([CategoryData].self, forKey: .cats)
        replace = try c.decodeIfPresent(Bool.self, forKey: .replace)
        skipTriggers = try c.decodeIfPresent(Bool.self, forKey: .skipTriggers)
    }
}

/// `inapp/status`: the identity only.
public struct InAppStatusRequest: Codable, Sendable, Equatable, InAppIdentified {
    public var provider: String?
    public var subscriptionId: String?

    /// Creates the value from its fields.
    public init(provider: String? = nil, subscriptionId: String? = nil) {
        self.provider = provider
        self.subscriptionId = subscriptionId
    }

    enum CodingKeys: String, CodingKey {
        case provider
        case subscriptionId = "subscription_id"
    }
}

/// `inapp/placements`: the identity, the current screen and the most placements wanted.
public struct InAppPlacementsRequest: Codable, Sendable, Equatable, InAppIdentified {
    /// The default of `max_placements`.
    public static let defaultMaxPlacements = 20
    /// The allowed `max_placements`.
    public static let maxPlacementsRange = 1...100

    public var provider: String?
    public var subscriptionId: String?
    /// The device's current screen.
    public var screen: String?
    /// At most this many placements (the SDK's `maxPlacements`), 1...100; nil is 20.
    public var maxPlacements: Int?

    /// Creates the value from its fields.
    public init(
        provider: String? = nil, subscriptionId: String? = nil, screen: String? = nil, maxPlacements: Int? = nil
    ) {
        self.provider = provider
        self.subscriptionId = subscriptionId
        self.screen = screen
        self.maxPlacements = maxPlacements
    }

    enum CodingKeys: String, CodingKey {
        case provider, screen
        case subscriptionId = "subscription_id"
        case maxPlacements = "max_placements"
    }
}

/// The `data` of the `inapp/placements` answer.
public struct InAppPlacementsAnswer: Codable, Sendable, Equatable {
    /// Highest priority first, at most `max_placements`.
    public var placements: [InAppPlacement]
    /// The project's caps, which hold beside each campaign's.
    public var projectCaps: InAppCaps
    /// When the server answered.
    public var fetchedAt: Date
    /// The profile's in-app subscription status on this resource; nil without a profile or subscription.
    public var inAppStatus: SubscriptionStatus?

    /// Creates the value from its fields.
    public init(placements: [InAppPlacement], projectCaps: InAppCaps, fetchedAt: Date, inAppStatus: SubscriptionStatus?)
    {
        self.placements = placements
        self.projectCaps = projectCaps
        self.fetchedAt = fetchedAt
        self.inAppStatus = inAppStatus
    }

    enum CodingKeys: String, CodingKey {
        case placements
        case projectCaps = "project_caps"
        case fetchedAt = "fetched_at"
        case inAppStatus = "inapp_status"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        placements = try c.decode([InAppPlacement].self, forKey: .placements)
        projectCaps = try c.decodeIfPresent(InAppCaps.self, forKey: .projectCaps) ?? .none
        fetchedAt = try InAppWire.decodeDate(c, .fetchedAt) ?? Date(timeIntervalSince1970: 0)
        inAppStatus = try c.decodeIfPresent(SubscriptionStatus.self, forKey: .inAppStatus)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(placements, forKey: .placements)
        try c.encode(projectCaps, forKey: .projectCaps)
        try c.encode(InAppWire.format(fetchedAt), forKey: .fetchedAt)
        try c.encode(inAppStatus, forKey: .inAppStatus)
    }
}

/// The whole `inapp/placements` answer: the envelope with `data`.
public struct InAppPlacementsResponse: Codable, Sendable, Equatable {
    /// 0 on success, else the HTTP status.
    public var error: Int?
    /// Empty on success, else why.
    public var errorText: String?
    /// The placements; nil on failure.
    public var data: InAppPlacementsAnswer?

    /// Creates the value from its fields.
    public init(error: Int?, errorText: String?, data: InAppPlacementsAnswer?) {
        self.error = error
        self.errorText = errorText
        self.data = data
    }

    enum CodingKeys: String, CodingKey {
        case error, data
        case errorText = "error_text"
    }
}

/// `inapp/event`: one campaign shown, clicked, closed, or failed; counted once per idempotency key.
public struct InAppEventRequest: Codable, Sendable, Equatable, InAppIdentified {
    /// What happened.
    public enum Kind: String, Codable, Sendable, CaseIterable {
        /// The message was drawn.
        case shown
        /// A button was tapped (`button_id`).
        case clicked
        /// The message was closed.
        case closed
        /// The message could not be shown (`reason`).
        case error

        public init(from decoder: any Decoder) throws { self = try InAppWire.decodeEnum(decoder) }
    }

    public var provider: String?
    public var subscriptionId: String?
    /// The placement's `smid`.
    public var smid: String
    /// The placement's campaign.
    public var campaignId: String
    /// What happened.
    public var type: Kind
    /// `clicked`: the button.
    public var buttonId: String?
    /// `error`: why.
    public var reason: String?
    /// When it happened on the device.
    public var at: Date

    /// Creates the value from its fields.
    public init(
        provider: String? = nil, subscriptionId: String? = nil, smid: String, campaignId: String, type: Kind,
        buttonId: String? = nil, reason: String? = nil, at: Date
    ) {
        self.provider = provider
        self.subscriptionId = subscriptionId
        self.smid = smid
        self.campaignId = campaignId
        self.type = type
        self.buttonId = buttonId
        self.reason = reason
        self.at = at
    }

    enum CodingKeys: String, CodingKey {
        case provider, smid, type, reason, at
        case subscriptionId = "subscription_id"
        case campaignId = "campaign_id"
        case buttonId = "button_id"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        provider = try c.decodeIfPresent(String.self, forKey: .provider)
        subscriptionId = try c.decodeIfPresent(String.self, forKey: .subscriptionId)
        smid = try c.decode(String.self, forKey: .smid)
        campaignId = try c.decode(String.self, forKey: .campaignId)
        type = try c.decode(Kind.self, forKey: .type)
        buttonId = try c.decodeIfPresent(String.self, forKey: .buttonId)
        reason = try c.decodeIfPresent(String.self, forKey: .reason)
        guard let at = try InAppWire.decodeDate(c, .at) else {
            throw DecodingError.valueNotFound(
                String.self, .init(codingPath: [CodingKeys.at], debugDescription: "at is required"))
        }
        self.at = at
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encodeIfPresent(provider, forKey: .provider)
        try c.encodeIfPresent(subscriptionId, forKey: .subscriptionId)
        try c.encode(smid, forKey: .smid)
        try c.encode(campaignId, forKey: .campaignId)
        try c.encode(type, forKey: .type)
        try c.encode(buttonId, forKey: .buttonId)
        try c.encode(reason, forKey: .reason)
        try c.encode(InAppWire.format(at), forKey: .at)
    }
}

/// The in-app wire's shared rules: ISO-8601 times and enums refused with the values they take.
public enum InAppWire {
    /// The channel of in-app subscriptions in the subscription store.
    public static let channel = SubscriptionChannel.inapp
    /// Where Tern serves a campaign's static resources: `<prefix><campaign_id>/<name>`.
    public static let staticPathPrefix = "/api/v1/inapp/static/"

    /// `2026-12-01T08:30:00Z` (fractional seconds when the date has them: `…00.250Z`).
    public static func format(_ date: Date) -> String {
        let whole = date.timeIntervalSince1970.rounded(.down) == date.timeIntervalSince1970
        return whole
            ? date.formatted(.iso8601)
            : date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }

    /// An ISO-8601 date with a time zone, with or without fractional seconds; nil when it is not one.
    public static func parse(_ text: String) -> Date? {
        if let date = try? Date.ISO8601FormatStyle().parse(text) { return date }
        return try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text)
    }

    static func decodeDate<K: CodingKey>(_ container: KeyedDecodingContainer<K>, _ key: K) throws -> Date? {
        guard let text = try container.decodeIfPresent(String.self, forKey: key) else { return nil }
        guard let date = parse(text) else {
            throw DecodingError.dataCorruptedError(
                forKey: key, in: container,
                debugDescription: "expected an ISO-8601 date and time with a zone, like 2026-12-01T08:30:00Z")
        }
        return date
    }

    static func decodeEnum<E: RawRepresentable & CaseIterable>(_ decoder: any Decoder) throws -> E
    where E.RawValue == String {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let value = E(rawValue: text) else {
            let known = E.allCases.map(\.rawValue).joined(separator: ", ")
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "must be one of \(known), not \"\(text.prefix(32))\"")
        }
        return value
    }
}
