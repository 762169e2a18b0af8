import Foundation

// The in-app wire (docs/inapp.md): the parts of a campaign the device needs (display type, triggers,
// caps, content), as `inapp/placements` answers them; the requests are in InAppRequests.swift.

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
