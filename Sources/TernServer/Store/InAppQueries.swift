import Foundation

/// An in-app campaign as stored: the columns placements filter on, and the rest of its definition
/// (display type, triggers, audience, caps, content) as JSON (`InAppDefinition`).
public struct InAppCampaignRecord: Sendable, Equatable {
    public var id: Int64
    public var projectId: Int64
    public var resourceId: Int64
    public var name: String
    /// `draft`, `active`, `paused` or `ended` (``InAppCampaignStatus``).
    public var status: String
    public var priority: Int64
    /// ms since 1970; nil: no start.
    public var startsAt: Int64?
    /// ms since 1970; nil: no end.
    public var endsAt: Int64?
    /// The `InAppDefinition` as JSON.
    public var definition: String
    public var createdAt: Int64
    public var updatedAt: Int64

    public init(
        id: Int64, projectId: Int64, resourceId: Int64, name: String, status: String, priority: Int64,
        startsAt: Int64?, endsAt: Int64?, definition: String, createdAt: Int64, updatedAt: Int64
    ) {
        self.id = id
        self.projectId = projectId
        self.resourceId = resourceId
        self.name = name
        self.status = status
        self.priority = priority
        self.startsAt = startsAt
        self.endsAt = endsAt
        self.definition = definition
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}

/// One counter of a campaign's statistics: `kind` (`placed`, `shown`, `clicked`, `closed`, `error`)
/// and `item` (the button of a click, the reason of an error, else empty).
public struct InAppStatCount: Sendable, Equatable {
    public var kind: String
    public var item: String
    public var count: Int64

    public init(kind: String, item: String, count: Int64) {
        self.kind = kind
        self.item = item
        self.count = count
    }
}

/// A static resource Tern serves for an HTML campaign.
public struct InAppStaticFile: Sendable, Equatable {
    public var contentType: String
    public var bytes: Data

    public init(contentType: String, bytes: Data) {
        self.contentType = contentType
        self.bytes = bytes
    }
}

/// In-app campaigns, their statistics, their static resources, and the projects' caps.
public protocol InAppQueries {
    /// Stores a new campaign (its `id` is ignored) and returns it with its id.
    func insertInAppCampaign(_ campaign: InAppCampaignRecord) throws -> InAppCampaignRecord
    /// Saves every column but `id`, `project_id` and `created_at`.
    func updateInAppCampaign(_ campaign: InAppCampaignRecord) throws
    func inAppCampaign(id: Int64) throws -> InAppCampaignRecord?
    /// Newest first, each filter optional, at most `limit`.
    func inAppCampaigns(projectId: Int64?, resourceId: Int64?, status: String?, limit: Int) throws
        -> [InAppCampaignRecord]
    /// Adds `count` to one counter, creating it.
    func addInAppStat(campaignId: Int64, kind: String, item: String, count: Int64) throws
    func inAppStats(campaignId: Int64) throws -> [InAppStatCount]
    /// Stores (or replaces) a static resource.
    func putInAppStatic(campaignId: Int64, name: String, file: InAppStaticFile, now: Int64) throws
    func inAppStatic(campaignId: Int64, name: String) throws -> InAppStaticFile?
    /// The names of a campaign's static resources, sorted.
    func inAppStaticNames(campaignId: Int64) throws -> [String]
    /// The project's caps as JSON (`InAppCaps`), nil when never set.
    func inAppProjectCaps(projectId: Int64) throws -> String?
    func setInAppProjectCaps(projectId: Int64, caps: String, now: Int64) throws
}
