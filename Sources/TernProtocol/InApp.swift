import Foundation

// The in-app wire (docs/inapp.md): what `inapp/placements` answers and `inapp/event` takes, and the
// parts of a campaign the device needs (display type, triggers, caps, content).

/// How a campaign is drawn.
public enum InAppDisplayType: String, Codable, Sendable, CaseIterable {
    /// The whole screen.
    case fullscreen
    /// A bar over the content (drawn full screen, as fullscreen).
    case floatingBar = "floating_bar"
    /// A panel sized and placed by the content's script (full screen when it does not answer).
    case slideup
    /// The app's own kind (drawn full screen).
    case custom
    /// A modal window (drawn full screen).
    case modal

    public init(from decoder: any Decoder) throws { self = try InAppWire.decodeEnum(decoder) }
}

/// Display limits, of a campaign or of a project; nil is no limit. Encoded with explicit nulls.
public struct InAppCaps: Codable, Sendable, Equatable, Hashable {
    /// Displays in one session.
    public var perSession: Int?
    /// Displays in one day (the device's calendar day).
    public var perDay: Int?
    /// The least time between two displays, in seconds.
    public var minIntervalSeconds: Int?

    /// Creates the value from its fields.
    public init(perSession: Int? = nil, perDay: Int? = nil, minIntervalSeconds: Int? = nil) {
        self.perSession = perSession
        self.perDay = perDay
        self.minIntervalSeconds = minIntervalSeconds
    }

    /// No cap at all.
    public static let none = InAppCaps()

    enum CodingKeys: String, CodingKey {
        case perSession = "per_session"
        case perDay = "per_day"
        case minIntervalSeconds = "min_interval_seconds"
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(perSession, forKey: .perSession)
        try container.encode(perDay, forKey: .perDay)
        try container.encode(minIntervalSeconds, forKey: .minIntervalSeconds)
    }
}

/// A comparison of a custom trigger's property.
public struct InAppCondition: Codable, Sendable, Equatable, Hashable {
    /// The comparison.
    public enum Operator: String, Codable, Sendable, CaseIterable {
        /// Equal.
        case eq
        /// Not equal.
        case ne
        /// Less than.
        case lt
        /// Less than or equal.
        case le
        /// Greater than.
        case gt
        /// Greater than or equal.
        case ge
        /// Present (`value` true) or absent (`value` false).
        case exists
        /// One of the array `value`.
        case isIn = "in"

        public init(from decoder: any Decoder) throws { self = try InAppWire.decodeEnum(decoder) }
    }

    /// The trigger property compared.
    public var property: String
    /// The comparison.
    public var op: Operator
    /// What it is compared with: for `exists` true or false, for `in` an array.
    public var value: JSONValue?

    /// Creates the value from its fields.
    public init(property: String, op: Operator, value: JSONValue?) {
        self.property = property
        self.op = op
        self.value = value
    }
}

/// What makes a device show a campaign. `openPage` takes `screens` (empty: any screen); `custom`
/// takes `name` and `conditions`.
public struct InAppTrigger: Codable, Sendable, Equatable, Hashable {
    /// The kind of trigger.
    public enum Kind: String, Codable, Sendable, CaseIterable {
        /// The app came to the foreground.
        case openApp = "open_app"
        /// A screen was shown (`setScreen`).
        case openPage = "open_page"
        /// A trigger the app names, with properties.
        case custom

        public init(from decoder: any Decoder) throws { self = try InAppWire.decodeEnum(decoder) }
    }

    /// The kind of trigger.
    public var type: Kind
    /// For `openPage`: the screens it fires on; empty or nil is any screen.
    public var screens: [String]?
    /// For `custom`: the trigger's name.
    public var name: String?
    /// For `custom`: every one must hold for the trigger's properties.
    public var conditions: [InAppCondition]?

    /// Creates the value from its fields.
    public init(type: Kind, screens: [String]? = nil, name: String? = nil, conditions: [InAppCondition]? = nil) {
        self.type = type
        self.screens = screens
        self.name = name
        self.conditions = conditions
    }

    /// `{"type": "open_app"}`.
    public static let openApp = InAppTrigger(type: .openApp)
}

/// What a button does.
public struct InAppAction: Codable, Sendable, Equatable, Hashable {
    /// The five action kinds.
    public enum Kind: String, Codable, Sendable, CaseIterable {
        /// Open `value`, a link into the app.
        case deepLink = "deep_link"
        /// Open `value`, an http(s) URL.
        case url
        /// The app's own action: `name` and an optional `value`.
        case custom
        /// Ask for push permission.
        case requestPush = "request_push"
        /// Close the message.
        case close

        public init(from decoder: any Decoder) throws { self = try InAppWire.decodeEnum(decoder) }
    }

    /// The kind of action.
    public var type: Kind
    /// `deepLink` and `url`: the link; `custom`: its value (optional).
    public var value: String?
    /// `custom`: its name.
    public var name: String?

    /// Creates the value from its fields.
    public init(type: Kind, value: String? = nil, name: String? = nil) {
        self.type = type
        self.value = value
        self.name = name
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(type, forKey: .type)
        try container.encode(value, forKey: .value)
        try container.encode(name, forKey: .name)
    }

    enum CodingKeys: String, CodingKey { case type, value, name }
}

/// A template's button.
public struct InAppButton: Codable, Sendable, Equatable, Hashable {
    /// Distinct within the template; `inapp/event` names it as `button_id`.
    public var id: String
    /// The label.
    public var text: String
    /// What a tap does.
    public var action: InAppAction

    /// Creates the value from its fields.
    public init(id: String, text: String, action: InAppAction) {
        self.id = id
        self.text = text
        self.action = action
    }
}

/// A structured campaign the SDK draws natively.
public struct InAppTemplate: Codable, Sendable, Equatable, Hashable {
    /// The headline.
    public var title: String
    /// The text under it.
    public var body: String?
    /// An http(s) URL, or a path under `/api/v1/inapp/static/` on the Tern server.
    public var imageURL: String?
    /// Up to three buttons.
    public var buttons: [InAppButton]?

    /// Creates the value from its fields.
    public init(title: String, body: String? = nil, imageURL: String? = nil, buttons: [InAppButton]? = nil) {
        self.title = title
        self.body = body
        self.imageURL = imageURL
        self.buttons = buttons
    }

    enum CodingKeys: String, CodingKey {
        case title, body, buttons
        case imageURL = "image_url"
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(title, forKey: .title)
        try container.encode(body, forKey: .body)
        try container.encode(imageURL, forKey: .imageURL)
        try container.encode(buttons ?? [], forKey: .buttons)
    }
}

/// A campaign's content: HTML (with its base URL for relative resources) or a template.
public struct InAppContent: Codable, Sendable, Equatable, Hashable {
    /// Which of the two.
    public enum Kind: String, Codable, Sendable, CaseIterable {
        /// HTML in a web view.
        case html
        /// A template drawn natively.
        case template

        public init(from decoder: any Decoder) throws { self = try InAppWire.decodeEnum(decoder) }
    }

    /// Which of the two.
    public var kind: Kind
    /// `html`: the page.
    public var html: String?
    /// `html`: where its relative URLs resolve (an absolute URL, or `/api/v1/inapp/static/<id>/`).
    public var baseURL: String?
    /// `template`: the template.
    public var template: InAppTemplate?

    /// Creates the value from its fields.
    public init(kind: Kind, html: String? = nil, baseURL: String? = nil, template: InAppTemplate? = nil) {
        self.kind = kind
        self.html = html
        self.baseURL = baseURL
        self.template = template
    }

    /// HTML content.
    public static func html(_ html: String, baseURL: String? = nil) -> InAppContent {
        InAppContent(kind: .html, html: html, baseURL: baseURL)
    }

    /// Template content.
    public static func template(_ template: InAppTemplate) -> InAppContent {
        InAppContent(kind: .template, template: template)
    }

    enum CodingKeys: String, CodingKey {
        case kind, html, template
        case baseURL = "base_url"
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(kind, forKey: .kind)
        switch kind {
        case .html:
            try container.encode(html, forKey: .html)
            try container.encode(baseURL, forKey: .baseURL)
        case .template:
            try container.encode(template, forKey: .template)
        }
    }
}

/// One campaign this device may show, as `inapp/placements` answers it.
public struct InAppPlacement: Codable, Sendable, Equatable, Hashable {
    /// This profile × campaign placement; `inapp/event` sends it back.
    public var smid: String?
    /// The campaign, as `inapp/event` names it.
    public var campaignId: String
    /// How it is drawn.
    public var displayType: InAppDisplayType
    /// Higher first.
    public var priority: Int
    /// True: shown whatever the in-app subscription status.
    public var anonymous: Bool
    /// What shows it; at least one.
    public var triggers: [InAppTrigger]
    /// The campaign's own caps.
    public var caps: InAppCaps
    /// Shown from then on; nil: no start.
    public var startsAt: Date?
    /// Shown until then; nil: no end.
    public var endsAt: Date?
    /// What is drawn.
    public var content: InAppContent

    /// Creates the value from its fields.
    public init(
        smid: String?, campaignId: String, displayType: InAppDisplayType, priority: Int, anonymous: Bool,
        triggers: [InAppTrigger], caps: InAppCaps, startsAt: Date?, endsAt: Date?, content: InAppContent
    ) {
        self.smid = smid
        self.campaignId = campaignId
        self.displayType = displayType
        self.priority = priority
        self.anonymous = anonymous
        self.triggers = triggers
        self.caps = caps
        self.startsAt = startsAt
        self.endsAt = endsAt
        self.content = content
    }

    enum CodingKeys: String, CodingKey {
        case smid, priority, anonymous, triggers, caps, content
        case campaignId = "campaign_id"
        case displayType = "display_type"
        case startsAt = "starts_at"
        case endsAt = "ends_at"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        smid = try c.decodeIfPresent(String.self, forKey: .smid)
        campaignId = try c.decode(String.self, forKey: .campaignId)
        displayType = try c.decode(InAppDisplayType.self, forKey: .displayType)
        priority = try c.decodeIfPresent(Int.self, forKey: .priority) ?? 0
        anonymous = try c.decodeIfPresent(Bool.self, forKey: .anonymous) ?? false
        triggers = try c.decode([InAppTrigger].self, forKey: .triggers)
        caps = try c.decodeIfPresent(InAppCaps.self, forKey: .caps) ?? .none
        startsAt = try InAppWire.decodeDate(c, .startsAt)
        endsAt = try InAppWire.decodeDate(c, .endsAt)
        content = try c.decode(InAppContent.self, forKey: .content)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(smid, forKey: .smid)
        try c.encode(campaignId, forKey: .campaignId)
        try c.encode(displayType, forKey: .displayType)
        try c.encode(priority, forKey: .priority)
        try c.encode(anonymous, forKey: .anonymous)
        try c.encode(triggers, forKey: .triggers)
        try c.encode(caps, forKey: .caps)
        try c.encode(startsAt.map(InAppWire.format), forKey: .startsAt)
        try c.encode(endsAt.map(InAppWire.format), forKey: .endsAt)
        try c.encode(content, forKey: .content)
    }
}

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
