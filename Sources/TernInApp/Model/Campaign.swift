import Foundation

/// How a campaign is drawn. Every type but ``slideup`` covers the screen; a slide-up is sized and
/// placed by its content's script, and covers the screen when the script has not answered in a second.
public enum InAppDisplayType: String, Sendable, Codable, CaseIterable {
    case fullscreen
    case floatingBar = "floating_bar"
    case slideup
    case custom
    case modal
}

/// Display limits: a campaign's own, or the project's for all its campaigns. Nil means no limit.
public struct InAppCaps: Sendable, Codable, Equatable {
    /// Displays in one session.
    public var perSession: Int?
    /// Displays in the last 24 hours.
    public var perDay: Int?
    /// The least time between two displays, in seconds.
    public var minIntervalSeconds: Int?

    /// Limits; nil leaves that limit off.
    public init(perSession: Int? = nil, perDay: Int? = nil, minIntervalSeconds: Int? = nil) {
        self.perSession = perSession
        self.perDay = perDay
        self.minIntervalSeconds = minIntervalSeconds
    }

    enum CodingKeys: String, CodingKey {
        case perSession = "per_session"
        case perDay = "per_day"
        case minIntervalSeconds = "min_interval_seconds"
    }
}

/// What starts a campaign: the app coming to the foreground, a screen, or a name the app triggers
/// with properties that must meet conditions.
public enum InAppTriggerRule: Sendable, Equatable, Codable {
    /// `open_app`.
    case openApp
    /// `open_page`: one of `screens`, or any screen when empty.
    case openPage(screens: [String])
    /// `custom`: the name given to ``InApp/trigger(_:properties:)``, every condition met.
    case custom(name: String, conditions: [InAppCondition])

    enum CodingKeys: String, CodingKey { case type, screens, name, conditions }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        switch try container.decode(String.self, forKey: .type) {
        case "open_app": self = .openApp
        case "open_page": self = .openPage(screens: try container.decodeIfPresent([String].self, forKey: .screens) ?? [])
        case "custom":
            self = .custom(
                name: try container.decode(String.self, forKey: .name),
                conditions: try container.decodeIfPresent([InAppCondition].self, forKey: .conditions) ?? [])
        case let other:
            throw DecodingError.dataCorruptedError(
                forKey: .type, in: container, debugDescription: "unknown trigger type \"\(other)\"")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .openApp: try container.encode("open_app", forKey: .type)
        case .openPage(let screens):
            try container.encode("open_page", forKey: .type)
            try container.encode(screens, forKey: .screens)
        case .custom(let name, let conditions):
            try container.encode("custom", forKey: .type)
            try container.encode(name, forKey: .name)
            try container.encode(conditions, forKey: .conditions)
        }
    }
}

/// A condition on one property of a custom trigger.
public struct InAppCondition: Sendable, Equatable, Codable {
    /// How the property is compared with ``value``.
    public enum Operator: String, Sendable, Codable, CaseIterable {
        case eq, ne, lt, le, gt, ge, exists, `in`
    }

    /// The property's name.
    public var property: String
    /// The comparison.
    public var op: Operator
    /// What the property is compared with (for `exists`, true or false; for `in`, a list).
    public var value: JSONValue

    /// A condition.
    public init(property: String, op: Operator, value: JSONValue) {
        self.property = property
        self.op = op
        self.value = value
    }

    enum CodingKeys: String, CodingKey { case property, op, value }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        property = try container.decode(String.self, forKey: .property)
        op = try container.decode(Operator.self, forKey: .op)
        value = try container.decodeIfPresent(JSONValue.self, forKey: .value) ?? .null
    }
}

/// What a button does when tapped.
public struct InAppAction: Sendable, Equatable, Codable {
    /// The kinds of action.
    public enum Kind: String, Sendable, Codable, CaseIterable {
        case deepLink = "deep_link"
        case url
        case custom
        case requestPush = "request_push"
        case close
    }

    /// The kind.
    public var type: Kind
    /// The link for `deep_link` and `url`, the value for `custom`.
    public var value: String?
    /// The name for `custom`.
    public var name: String?

    /// An action.
    public init(type: Kind, value: String? = nil, name: String? = nil) {
        self.type = type
        self.value = value
        self.name = name
    }
}

/// A template's button.
public struct InAppButton: Sendable, Equatable, Codable {
    /// Reported with `clicked`.
    public var id: String
    /// The label.
    public var text: String
    /// What a tap does.
    public var action: InAppAction

    /// A button.
    public init(id: String, text: String, action: InAppAction) {
        self.id = id
        self.text = text
        self.action = action
    }
}

/// A structured campaign, drawn natively.
public struct InAppTemplate: Sendable, Equatable, Codable {
    /// The title.
    public var title: String
    /// The text under the title.
    public var body: String?
    /// An image above the title.
    public var imageURL: String?
    /// Up to three buttons.
    public var buttons: [InAppButton]

    /// A template.
    public init(title: String, body: String? = nil, imageURL: String? = nil, buttons: [InAppButton] = []) {
        self.title = title
        self.body = body
        self.imageURL = imageURL
        self.buttons = buttons
    }

    enum CodingKeys: String, CodingKey {
        case title, body, buttons
        case imageURL = "image_url"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        title = try container.decode(String.self, forKey: .title)
        body = try container.decodeIfPresent(String.self, forKey: .body)
        imageURL = try container.decodeIfPresent(String.self, forKey: .imageURL)
        buttons = try container.decodeIfPresent([InAppButton].self, forKey: .buttons) ?? []
    }
}

/// A campaign's content: HTML (with relative resources under `baseURL`) or a template.
public enum InAppContent: Sendable, Equatable, Codable {
    /// A page drawn in a web view; its script talks to the SDK through the bridge.
    case html(String, baseURL: String?)
    /// A template drawn natively.
    case template(InAppTemplate)

    enum CodingKeys: String, CodingKey {
        case kind, html, template
        case baseURL = "base_url"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        switch try container.decode(String.self, forKey: .kind) {
        case "html":
            self = .html(
                try container.decode(String.self, forKey: .html),
                baseURL: try container.decodeIfPresent(String.self, forKey: .baseURL))
        case "template": self = .template(try container.decode(InAppTemplate.self, forKey: .template))
        case let other:
            throw DecodingError.dataCorruptedError(
                forKey: .kind, in: container, debugDescription: "unknown content kind \"\(other)\"")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .html(let html, let baseURL):
            try container.encode("html", forKey: .kind)
            try container.encode(html, forKey: .html)
            try container.encode(baseURL, forKey: .baseURL)
        case .template(let template):
            try container.encode("template", forKey: .kind)
            try container.encode(template, forKey: .template)
        }
    }
}

/// One campaign placed for this device (`inapp/placements`), as the SDK caches and matches it.
public struct InAppCampaign: Sendable, Equatable, Codable {
    /// This profile's placement of the campaign, sent back with every event.
    public var smid: String
    /// The campaign.
    public var campaignId: String
    /// How it is drawn.
    public var displayType: InAppDisplayType
    /// Higher first.
    public var priority: Int
    /// True: shown whatever the in-app subscription status; false: only to a subscribed profile.
    public var anonymous: Bool
    /// True when the campaign targets an audience: shown only with the person's consent.
    public var audience: Bool
    /// What starts it.
    public var triggers: [InAppTriggerRule]
    /// Its own display limits.
    public var caps: InAppCaps
    /// Not shown before.
    public var startsAt: Date?
    /// Not shown from.
    public var endsAt: Date?
    /// What is drawn.
    public var content: InAppContent

    /// A campaign.
    public init(
        smid: String, campaignId: String, displayType: InAppDisplayType, priority: Int = 0, anonymous: Bool = true,
        audience: Bool = false, triggers: [InAppTriggerRule], caps: InAppCaps = InAppCaps(), startsAt: Date? = nil,
        endsAt: Date? = nil, content: InAppContent
    ) {
        self.smid = smid
        self.campaignId = campaignId
        self.displayType = displayType
        self.priority = priority
        self.anonymous = anonymous
        self.audience = audience
        self.triggers = triggers
        self.caps = caps
        self.startsAt = startsAt
        self.endsAt = endsAt
        self.content = content
    }

    enum CodingKeys: String, CodingKey {
        case smid, priority, anonymous, audience, triggers, caps, content
        case campaignId = "campaign_id"
        case displayType = "display_type"
        case startsAt = "starts_at"
        case endsAt = "ends_at"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        smid = try container.decode(String.self, forKey: .smid)
        campaignId = try container.decode(String.self, forKey: .campaignId)
        displayType = try container.decode(InAppDisplayType.self, forKey: .displayType)
        priority = try container.decodeIfPresent(Int.self, forKey: .priority) ?? 0
        anonymous = try container.decodeIfPresent(Bool.self, forKey: .anonymous) ?? false
        audience = try container.decodeIfPresent(Bool.self, forKey: .audience) ?? false
        triggers = try container.decode([InAppTriggerRule].self, forKey: .triggers)
        caps = try container.decodeIfPresent(InAppCaps.self, forKey: .caps) ?? InAppCaps()
        startsAt = try container.decodeIfPresent(String.self, forKey: .startsAt).flatMap(InAppDates.parse)
        endsAt = try container.decodeIfPresent(String.self, forKey: .endsAt).flatMap(InAppDates.parse)
        content = try container.decode(InAppContent.self, forKey: .content)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(smid, forKey: .smid)
        try container.encode(campaignId, forKey: .campaignId)
        try container.encode(displayType, forKey: .displayType)
        try container.encode(priority, forKey: .priority)
        try container.encode(anonymous, forKey: .anonymous)
        try container.encode(audience, forKey: .audience)
        try container.encode(triggers, forKey: .triggers)
        try container.encode(caps, forKey: .caps)
        try container.encode(startsAt.map(InAppDates.format), forKey: .startsAt)
        try container.encode(endsAt.map(InAppDates.format), forKey: .endsAt)
        try container.encode(content, forKey: .content)
    }

    /// The campaign id as a number, for ``InAppAnimator/companyId`` (0 when it is not one).
    public var companyId: Int { Int(campaignId) ?? 0 }
}

/// ISO-8601 dates on the wire, with or without fractional seconds.
enum InAppDates {
    static func parse(_ text: String) -> Date? {
        if let date = try? Date(text, strategy: .iso8601) { return date }
        let fractional = ISO8601DateFormatter()
        fractional.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return fractional.date(from: text)
    }

    static func format(_ date: Date) -> String {
        date.formatted(.iso8601)
    }
}
