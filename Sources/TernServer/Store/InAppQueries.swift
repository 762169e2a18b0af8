import Foundation

/// An in-app campaign as stored: the columns placements filter on, and the rest of its definition
/// (display type, triggers, audience, caps, content) as JSON (`InAppDefinition`).
public struct InAppCampaignRecord: Sendable, Equatable {
    public var id: Int64
    var projectId: Int64
    var resourceId: Int64
    var name: String
    /// `draft`, `active`, `paused` or `ended` (``InAppCampaignStatus``).
    var status: String
    var priority: Int64
    /// ms since 1970; nil: no start.
    var startsAt: Int64?
    /// ms since 1970; nil: no end.
    var endsAt: Int64?
    /// The `InAppDefinition` as JSON.
    var definition: String
    var createdAt: Int64
    var updatedAt: Int64
}

/// One counter of a campaign's statistics: `kind` (`placed`, `shown`, `clicked`, `closed`, `error`)
/// and `item` (the button of a click, the reason of an error, else empty).
public struct InAppStatCount: Sendable, Equatable {
    var kind: String
    var item: String
    var count: Int64
}

/// A static resource Tern serves for an HTML campaign.
public struct InAppStaticFile: Sendable, Equatable {
    var contentType: String
    var bytes: Data
}

/// In-app campaigns, their statistics, their static resources, and the projects' caps.
public protocol InAppQueries {
    /// Stores a new campaign (its `id` is ignored) and returns it with its id.
    func insertInAppCampaign(_ campaign: InAppCampaignRecord) throws -> InAppCampaignRecord
    /// Saves every column but `id`, `project_id` and `created_at`.
    func updateInAppCampaign(_ campaign: InAppCampaignRecord) throws
    /// The campaign with this id, or nil when there is none.
    ///
    /// - Parameter id: The campaign's id.
    func inAppCampaign(id: Int64) throws -> InAppCampaignRecord?
    /// Newest first, each filter optional, at most `limit`.
    func inAppCampaigns(projectId: Int64?, resourceId: Int64?, status: String?, limit: Int) throws
        -> [InAppCampaignRecord]
    /// Adds `count` to one counter, creating it.
    func addInAppStat(campaignId: Int64, kind: String, item: String, count: Int64) throws
    /// Every counter of a campaign (impressions, clicks, dismissals, per item).
    ///
    /// - Parameter campaignId: The campaign's id.
    func inAppStats(campaignId: Int64) throws -> [InAppStatCount]
    /// Stores (or replaces) a static resource.
    func putInAppStatic(campaignId: Int64, name: String, file: InAppStaticFile, now: Int64) throws
    /// A campaign's static resource by name, or nil when it has none of that name.
    ///
    /// - Parameters:
    ///   - campaignId: The campaign's id.
    ///   - name: The resource's file name.
    func inAppStatic(campaignId: Int64, name: String) throws -> InAppStaticFile?
    /// The names of a campaign's static resources, sorted.
    func inAppStaticNames(campaignId: Int64) throws -> [String]
    /// The project's caps as JSON (`InAppCaps`), nil when never set.
    func inAppProjectCaps(projectId: Int64) throws -> String?
    /// Sets (or replaces) the project's caps.
    ///
    /// - Parameters:
    ///   - projectId: The project's id.
    ///   - caps: The caps as JSON (`InAppCaps`).
    ///   - now: The time of the change, in milliseconds since 1970.
    func setInAppProjectCaps(projectId: Int64, caps: String, now: Int64) throws
}
