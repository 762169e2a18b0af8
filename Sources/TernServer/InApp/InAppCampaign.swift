import Foundation
import TernProtocol

/// Where a campaign is in its life: created as a draft, started (active), paused and started again,
/// and ended for good.
enum InAppCampaignStatus: String, Codable, Sendable, CaseIterable {
    case draft, active, paused, ended
}

/// Who an audience campaign is for: every filter must hold for the profile's in-app subscription
/// (categories active, custom fields equal) and the device's push binding (tags), as a message's
/// `resource` audience is evaluated (``AudienceFilter``).
///
/// `filter` (an ``AudienceExpression``) is evaluated on the device's push binding, where the SDK
/// reports the built-in fields and sets tags: its fields and tags.
struct InAppAudience: Codable, Sendable, Equatable {
    var categories: [String]?
    var fields: [String: JSONValue]?
    var tags: [String: String?]?
    /// Conditions on built-in and custom fields and tags of the device's push binding.
    var filter: JSONValue?

    /// True when its categories, fields and tags filter nothing (the `filter` is checked apart).
    var isEmpty: Bool { (categories ?? []).isEmpty && (fields ?? [:]).isEmpty && (tags ?? [:]).isEmpty }

    /// The same filters as a message's audience of this resource.
    func filter(resourceId: Int64) -> AudienceFilter {
        AudienceFilter(
            MessageAudience(
                type: .resource, resourceId: resourceId, categories: categories, fields: fields, tags: tags),
            category: nil)
    }
}

/// A campaign as the management API takes it (`POST`, and `PATCH` after merging the stored one).
/// Times are ISO-8601 text, checked by `InAppValidation`.
struct InAppCampaignSpec: Codable, Sendable, Equatable {
    var projectId: Int64
    var resourceId: Int64
    var name: String
    var displayType: InAppDisplayType
    var priority: Int?
    var anonymous: Bool?
    var triggers: [InAppTrigger]
    var audience: InAppAudience?
    var caps: InAppCaps?
    var startsAt: String?
    var endsAt: String?
    var content: InAppContent

    enum CodingKeys: String, CodingKey {
        case name, priority, anonymous, triggers, audience, caps, content
        case projectId = "project_id"
        case resourceId = "resource_id"
        case displayType = "display_type"
        case startsAt = "starts_at"
        case endsAt = "ends_at"
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(projectId, forKey: .projectId)
        try c.encode(resourceId, forKey: .resourceId)
        try c.encode(name, forKey: .name)
        try c.encode(displayType, forKey: .displayType)
        try c.encode(priority ?? 0, forKey: .priority)
        try c.encode(anonymous ?? false, forKey: .anonymous)
        try c.encode(triggers, forKey: .triggers)
        try c.encode(audience, forKey: .audience)
        try c.encode(caps ?? .none, forKey: .caps)
        try c.encode(startsAt, forKey: .startsAt)
        try c.encode(endsAt, forKey: .endsAt)
        try c.encode(content, forKey: .content)
    }
}

/// What a stored campaign keeps as JSON beside its columns.
struct InAppDefinition: Codable, Sendable, Equatable {
    var displayType: InAppDisplayType
    var anonymous: Bool
    var triggers: [InAppTrigger]
    var audience: InAppAudience?
    var caps: InAppCaps
    var content: InAppContent

    enum CodingKeys: String, CodingKey {
        case anonymous, triggers, audience, caps, content
        case displayType = "display_type"
    }
}

/// A campaign as the management API answers it.
struct InAppCampaignView: Encodable, Sendable, Equatable {
    var id: String
    var status: InAppCampaignStatus
    var spec: InAppCampaignSpec
    /// Names of the static resources Tern serves for it.
    var staticNames: [String]
    var createdAt: Int64
    var updatedAt: Int64

    enum CodingKeys: String, CodingKey {
        case id, status
        case staticNames = "static"
        case createdAt = "created_at"
        case updatedAt = "updated_at"
    }

    func encode(to encoder: any Encoder) throws {
        try spec.encode(to: encoder)
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(status, forKey: .status)
        try c.encode(staticNames, forKey: .staticNames)
        try c.encode(createdAt, forKey: .createdAt)
        try c.encode(updatedAt, forKey: .updatedAt)
    }
}

/// A campaign's statistics.
struct InAppStatsView: Codable, Sendable, Equatable {
    var campaignId: String
    var placed: Int64
    var shown: Int64
    var clicked: Int64
    var clicksByButton: [String: Int64]
    var closed: Int64
    var errors: Int64
    var errorsByReason: [String: Int64]

    enum CodingKeys: String, CodingKey {
        case placed, shown, clicked, closed, errors
        case campaignId = "campaign_id"
        case clicksByButton = "clicks_by_button"
        case errorsByReason = "errors_by_reason"
    }

    init(campaignId: Int64, counts: [InAppStatCount]) {
        self.campaignId = String(campaignId)
        func total(_ kind: InAppStatKind) -> Int64 {
            counts.filter { $0.kind == kind.rawValue }.reduce(0) { $0 + $1.count }
        }
        func items(_ kind: InAppStatKind) -> [String: Int64] {
            Dictionary(counts.filter { $0.kind == kind.rawValue }.map { ($0.item, $0.count) }, uniquingKeysWith: +)
        }
        placed = total(.placed)
        shown = total(.shown)
        clicked = total(.clicked)
        clicksByButton = items(.clicked)
        closed = total(.closed)
        errors = total(.error)
        errorsByReason = items(.error)
    }
}

/// The counters of ``InAppQueries/addInAppStat(campaignId:kind:item:count:)``.
enum InAppStatKind: String {
    case placed, shown, clicked, closed, error
}

extension InAppCampaignRecord {
    var campaignStatus: InAppCampaignStatus { InAppCampaignStatus(rawValue: status) ?? .draft }

    func decodedDefinition() throws -> InAppDefinition {
        do {
            return try JSONCoders.decoder.decode(InAppDefinition.self, from: Data(definition.utf8))
        } catch {
            throw StoreError.backend("in-app campaign \(id) has a definition that does not decode: \(error)")
        }
    }

    /// The campaign in the management API's shape.
    func spec() throws -> InAppCampaignSpec {
        let definition = try decodedDefinition()
        return InAppCampaignSpec(
            projectId: projectId, resourceId: resourceId, name: name, displayType: definition.displayType,
            priority: Int(priority), anonymous: definition.anonymous, triggers: definition.triggers,
            audience: definition.audience, caps: definition.caps,
            startsAt: startsAt.map { InAppWire.format(Date(milliseconds: $0)) },
            endsAt: endsAt.map { InAppWire.format(Date(milliseconds: $0)) }, content: definition.content)
    }

    func view(staticNames: [String]) throws -> InAppCampaignView {
        InAppCampaignView(
            id: String(id), status: campaignStatus, spec: try spec(), staticNames: staticNames, createdAt: createdAt,
            updatedAt: updatedAt)
    }

    /// The campaign as a device receives it; `baseURL` is filled for HTML whose resources Tern serves.
    func placement(smid: String?, servesStatic: Bool) throws -> InAppPlacement {
        let definition = try decodedDefinition()
        var content = definition.content
        if content.kind == .html, content.baseURL == nil, servesStatic {
            content.baseURL = InAppWire.staticPathPrefix + "\(id)/"
        }
        return InAppPlacement(
            smid: smid, campaignId: String(id), displayType: definition.displayType, priority: Int(priority),
            anonymous: definition.anonymous, triggers: definition.triggers, caps: definition.caps,
            startsAt: startsAt.map { Date(milliseconds: $0) }, endsAt: endsAt.map { Date(milliseconds: $0) },
            content: content)
    }
}

extension Date {
    init(milliseconds: Int64) { self.init(timeIntervalSince1970: Double(milliseconds) / 1000) }

    var milliseconds: Int64 { Int64((timeIntervalSince1970 * 1000).rounded()) }
}
