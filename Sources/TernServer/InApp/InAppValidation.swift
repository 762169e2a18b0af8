import Foundation
import TernProtocol

/// The rules of a campaign, each refusal naming the field and the reason (docs/inapp.md, "Validation").
/// Checks that need the store (the project, the resource, its categories) are in ``InAppService``.
enum InAppValidation {
    static let nameLength = 1...200
    static let priorityRange = -1000...1000
    static let maxTriggers = 20
    static let maxScreens = 100
    static let screenLength = 1...256
    static let triggerNameLength = 1...128
    static let maxConditions = 20
    static let propertyLength = 1...128
    static let maxCap = 1_000_000
    static let maxIntervalSeconds = 31_536_000
    static let htmlLength = 1...60_000
    static let urlLength = 1...2048
    static let titleLength = 1...200
    static let bodyLength = 0...2000
    static let maxButtons = 3
    static let buttonIdLength = 1...64
    static let buttonTextLength = 1...100
    static let actionNameLength = 1...128
    static let reasonLength = 1...1024
    static let maxAudienceCategories = 100
    /// 1 to 128 letters, digits, dots, dashes or underscores.
    static func isStaticName(_ name: String) -> Bool {
        (1...128).contains(name.utf8.count)
            && name.utf8.allSatisfy { byte in
                (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                    || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                    || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: ".")
                    || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
            }
    }
    static let maxStaticBytes = 1 << 20

    static func refuse(_ field: String, _ reason: String) -> APIError { .badRequest("\(field): \(reason)") }

    static func length(_ text: String, _ range: ClosedRange<Int>, _ field: String) throws(APIError) {
        let count = text.unicodeScalars.count
        guard range.contains(count) else {
            throw refuse(field, "must be \(range.lowerBound) to \(range.upperBound) characters, not \(count)")
        }
    }

    /// The campaign without the fields its kinds do not use (a trigger's screens unless it is
    /// `open_page`, its name and conditions unless `custom`; the other kind's content; an action's
    /// value and name where its type takes none), so what is stored is what is shown.
    static func normalized(_ spec: InAppCampaignSpec) -> InAppCampaignSpec {
        var spec = spec
        spec.triggers = spec.triggers.map { trigger in
            switch trigger.type {
            case .openApp: InAppTrigger(type: .openApp)
            case .openPage: InAppTrigger(type: .openPage, screens: trigger.screens ?? [])
            case .custom: InAppTrigger(type: .custom, name: trigger.name, conditions: trigger.conditions ?? [])
            }
        }
        switch spec.content.kind {
        case .html:
            spec.content = InAppContent(kind: .html, html: spec.content.html, baseURL: spec.content.baseURL)
        case .template:
            var template = spec.content.template
            let buttons = template?.buttons
            template?.buttons = buttons.map { buttons in
                buttons.map { button in
                    var button = button
                    switch button.action.type {
                    case .deepLink, .url: button.action.name = nil
                    case .custom: break
                    case .requestPush, .close:
                        button.action.value = nil
                        button.action.name = nil
                    }
                    return button
                }
            }
            spec.content = InAppContent(kind: .template, template: template)
        }
        return spec
    }

    /// Everything that can be checked without the store; returns the schedule in ms since 1970.
    static func check(_ spec: InAppCampaignSpec) throws(APIError) -> (startsAt: Int64?, endsAt: Int64?) {
        try length(spec.name, nameLength, "name")
        if let priority = spec.priority, !priorityRange.contains(priority) {
            throw refuse(
                "priority", "must be \(priorityRange.lowerBound) to \(priorityRange.upperBound), not \(priority)")
        }
        guard !spec.triggers.isEmpty else { throw refuse("triggers", "at least one trigger is needed") }
        guard spec.triggers.count <= maxTriggers else {
            throw refuse("triggers", "at most \(maxTriggers) triggers, not \(spec.triggers.count)")
        }
        for (index, trigger) in spec.triggers.enumerated() { try check(trigger, "triggers[\(index)]") }
        if let caps = spec.caps { try check(caps, "caps") }
        if let audience = spec.audience { try check(audience, "audience") }
        let startsAt = try date(spec.startsAt, "starts_at")
        let endsAt = try date(spec.endsAt, "ends_at")
        if let startsAt, let endsAt, endsAt <= startsAt {
            throw refuse("ends_at", "must be after starts_at")
        }
        try check(spec.content, "content")
        return (startsAt, endsAt)
    }

    static func date(_ text: String?, _ field: String) throws(APIError) -> Int64? {
        guard let text else { return nil }
        guard let date = InAppWire.parse(text) else {
            throw refuse(field, "must be an ISO-8601 date and time with a zone, like 2026-12-01T08:30:00Z")
        }
        return date.milliseconds
    }

    /// A trigger's fields are checked whatever its type (a field its type ignores is dropped when stored).
    static func check(_ trigger: InAppTrigger, _ field: String) throws(APIError) {
        let screens = trigger.screens ?? []
        guard screens.count <= maxScreens else {
            throw refuse("\(field).screens", "at most \(maxScreens) screens, not \(screens.count)")
        }
        for (index, screen) in screens.enumerated() {
            try length(screen, screenLength, "\(field).screens[\(index)]")
        }
        if let name = trigger.name { try length(name, triggerNameLength, "\(field).name") }
        if trigger.type == .custom, trigger.name == nil {
            throw refuse("\(field).name", "a custom trigger needs its name")
        }
        let conditions = trigger.conditions ?? []
        guard conditions.count <= maxConditions else {
            throw refuse("\(field).conditions", "at most \(maxConditions) conditions, not \(conditions.count)")
        }
        for (index, condition) in conditions.enumerated() {
            let path = "\(field).conditions[\(index)]"
            try length(condition.property, propertyLength, "\(path).property")
            switch (condition.op, condition.value) {
            case (.exists, .bool?), (.exists, nil):
                break
            case (.exists, _):
                throw refuse("\(path).value", "exists takes true or false")
            case (.isIn, .array?):
                break
            case (.isIn, _):
                throw refuse("\(path).value", "in takes an array of values")
            case (.lt, let value), (.le, let value), (.gt, let value), (.ge, let value):
                switch value {
                case .int?, .double?, .string?: break
                default: throw refuse("\(path).value", "\(condition.op.rawValue) compares with a number or a string")
                }
            case (.eq, _), (.ne, _):
                break
            }
        }
    }

    static func check(_ caps: InAppCaps, _ field: String) throws(APIError) {
        for (name, value, max) in [
            ("per_session", caps.perSession, maxCap), ("per_day", caps.perDay, maxCap),
            ("min_interval_seconds", caps.minIntervalSeconds, maxIntervalSeconds),
        ] {
            if let value, !(1...max).contains(value) {
                throw refuse("\(field).\(name)", "must be 1 to \(max) (or null for no cap), not \(value)")
            }
        }
    }

    static func check(_ audience: InAppAudience, _ field: String) throws(APIError) {
        let categories = audience.categories ?? []
        guard categories.count <= maxAudienceCategories else {
            throw refuse("\(field).categories", "at most \(maxAudienceCategories) categories")
        }
        for (index, name) in categories.enumerated() where name.isEmpty {
            throw refuse("\(field).categories[\(index)]", "a category name is not empty")
        }
        for (name, value) in audience.fields ?? [:] where !value.isScalar {
            throw refuse("\(field).fields.\(name)", "custom fields compare with scalars only")
        }
        if let filter = audience.filter {
            try AudienceExpression.parse(filter, path: "\(field).filter").refuseEngagement(path: "\(field).filter")
        }
    }

    static func check(_ content: InAppContent, _ field: String) throws(APIError) {
        switch content.kind {
        case .html:
            guard let html = content.html else { throw refuse("\(field).html", "HTML content needs its html") }
            try length(html, htmlLength, "\(field).html")
            if let base = content.baseURL {
                try httpURL(base, "\(field).base_url")
                guard base.hasSuffix("/") else {
                    throw refuse("\(field).base_url", "must end with / so relative paths resolve under it")
                }
            }
        case .template:
            guard let template = content.template else {
                throw refuse("\(field).template", "template content needs its template")
            }
            try check(template, "\(field).template")
        }
    }

    static func check(_ template: InAppTemplate, _ field: String) throws(APIError) {
        try length(template.title, titleLength, "\(field).title")
        if let body = template.body { try length(body, bodyLength, "\(field).body") }
        if let image = template.imageURL {
            try length(image, urlLength, "\(field).image_url")
            if !image.hasPrefix(InAppWire.staticPathPrefix) { try httpURL(image, "\(field).image_url") }
        }
        let buttons = template.buttons ?? []
        guard buttons.count <= maxButtons else {
            throw refuse("\(field).buttons", "at most \(maxButtons) buttons, not \(buttons.count)")
        }
        var ids: Set<String> = []
        for (index, button) in buttons.enumerated() {
            let path = "\(field).buttons[\(index)]"
            try length(button.id, buttonIdLength, "\(path).id")
            guard ids.insert(button.id).inserted else {
                throw refuse("\(path).id", "\"\(button.id)\" is already the id of another button")
            }
            try length(button.text, buttonTextLength, "\(path).text")
            try check(button.action, "\(path).action")
        }
    }

    static func check(_ action: InAppAction, _ field: String) throws(APIError) {
        if let value = action.value { try length(value, 0...urlLength.upperBound, "\(field).value") }
        if let name = action.name { try length(name, 0...actionNameLength.upperBound, "\(field).name") }
        switch action.type {
        case .deepLink:
            guard let value = action.value else { throw refuse("\(field).value", "a deep link needs its URL") }
            try length(value, urlLength, "\(field).value")
            guard value.wholeMatch(of: #/^[A-Za-z][A-Za-z0-9+.\-]*:\S*$/#) != nil else {
                throw refuse("\(field).value", "must be a URL with a scheme, like myapp://offers")
            }
        case .url:
            guard let value = action.value else { throw refuse("\(field).value", "a url action needs its URL") }
            try httpURL(value, "\(field).value")
        case .custom:
            guard let name = action.name else { throw refuse("\(field).name", "a custom action needs its name") }
            try length(name, actionNameLength, "\(field).name")
            if let value = action.value { try length(value, 0...urlLength.upperBound, "\(field).value") }
        case .requestPush, .close:
            break
        }
    }

    static func httpURL(_ text: String, _ field: String) throws(APIError) {
        try length(text, urlLength, field)
        guard text.wholeMatch(of: #/^[Hh][Tt][Tt][Pp][Ss]?://[^\s/]+\S*$/#) != nil else {
            throw refuse(field, "must be an absolute http or https URL")
        }
    }
}
