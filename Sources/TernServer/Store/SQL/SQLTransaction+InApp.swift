import Foundation
import TernSQLite

extension SQLTransaction {
    static var inAppCampaignColumns: String {
        "id, project_id, resource_id, name, status, priority, starts_at, ends_at, definition, created_at, updated_at"
    }

    func insertInAppCampaign(_ campaign: InAppCampaignRecord) throws -> InAppCampaignRecord {
        let id = try insert(
            """
            INSERT INTO inapp_campaigns (project_id, resource_id, name, status, priority, starts_at, ends_at,
                definition, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                campaign.projectId, campaign.resourceId, campaign.name, campaign.status, campaign.priority,
                campaign.startsAt, campaign.endsAt, campaign.definition, campaign.createdAt, campaign.updatedAt,
            ])
        var stored = campaign
        stored.id = id
        return stored
    }

    func updateInAppCampaign(_ campaign: InAppCampaignRecord) throws {
        try database.run(
            """
            UPDATE inapp_campaigns SET resource_id = ?, name = ?, status = ?, priority = ?, starts_at = ?, ends_at = ?,
                definition = ?, updated_at = ? WHERE id = ?
            """,
            [
                campaign.resourceId, campaign.name, campaign.status, campaign.priority, campaign.startsAt,
                campaign.endsAt, campaign.definition, campaign.updatedAt, campaign.id,
            ])
    }

    func inAppCampaign(id: Int64) throws -> InAppCampaignRecord? {
        try database.query("SELECT \(Self.inAppCampaignColumns) FROM inapp_campaigns WHERE id = ?", [id])
            .first.map(Self.inAppCampaign)
    }

    func inAppCampaigns(projectId: Int64?, resourceId: Int64?, status: String?, limit: Int) throws
        -> [InAppCampaignRecord]
    {
        var conditions: [String] = []
        var parameters: [any SQLiteBindable] = []
        if let projectId {
            conditions.append("project_id = ?")
            parameters.append(projectId)
        }
        if let resourceId {
            conditions.append("resource_id = ?")
            parameters.append(resourceId)
        }
        if let status {
            conditions.append("status = ?")
            parameters.append(status)
        }
        let filter = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
        return try database.query(
            "SELECT \(Self.inAppCampaignColumns) FROM inapp_campaigns \(filter) ORDER BY id DESC LIMIT ?",
            parameters + [limit]
        ).map(Self.inAppCampaign)
    }

    static func inAppCampaign(_ row: Connection.Row) -> InAppCampaignRecord {
        InAppCampaignRecord(
            id: row.requiredInt(0), projectId: row.requiredInt(1), resourceId: row.requiredInt(2),
            name: row.requiredString(3), status: row.requiredString(4), priority: row.requiredInt(5),
            startsAt: row.int(6), endsAt: row.int(7), definition: row.requiredString(8), createdAt: row.requiredInt(9),
            updatedAt: row.requiredInt(10))
    }

    func addInAppStat(campaignId: Int64, kind: String, item: String, count: Int64) throws {
        try database.run(
            """
            INSERT INTO inapp_stats (campaign_id, kind, item, n) VALUES (?, ?, ?, ?)
            ON CONFLICT (campaign_id, kind, item) DO UPDATE SET n = inapp_stats.n + excluded.n
            """, [campaignId, kind, item, count])
    }

    func inAppStats(campaignId: Int64) throws -> [InAppStatCount] {
        try database.query(
            "SELECT kind, item, n FROM inapp_stats WHERE campaign_id = ? ORDER BY kind, item", [campaignId]
        ).map { InAppStatCount(kind: $0.requiredString(0), item: $0.requiredString(1), count: $0.requiredInt(2)) }
    }

    func putInAppStatic(campaignId: Int64, name: String, file: InAppStaticFile, now: Int64) throws {
        try database.run(
            """
            INSERT INTO inapp_static (campaign_id, name, content_type, bytes, updated_at) VALUES (?, ?, ?, ?, ?)
            ON CONFLICT (campaign_id, name) DO UPDATE SET content_type = excluded.content_type,
                bytes = excluded.bytes, updated_at = excluded.updated_at
            """, [campaignId, name, file.contentType, file.bytes, now])
    }

    func inAppStatic(campaignId: Int64, name: String) throws -> InAppStaticFile? {
        try database.query(
            "SELECT content_type, bytes FROM inapp_static WHERE campaign_id = ? AND name = ?", [campaignId, name]
        ).first.map { InAppStaticFile(contentType: $0.requiredString(0), bytes: $0.data(1) ?? Data()) }
    }

    func inAppStaticNames(campaignId: Int64) throws -> [String] {
        try database.query("SELECT name FROM inapp_static WHERE campaign_id = ? ORDER BY name", [campaignId])
            .map { $0.requiredString(0) }
    }

    func inAppProjectCaps(projectId: Int64) throws -> String? {
        try database.query("SELECT caps FROM inapp_project_caps WHERE project_id = ?", [projectId]).first?.string(0)
    }

    func setInAppProjectCaps(projectId: Int64, caps: String, now: Int64) throws {
        try database.run(
            """
            INSERT INTO inapp_project_caps (project_id, caps, updated_at) VALUES (?, ?, ?)
            ON CONFLICT (project_id) DO UPDATE SET caps = excluded.caps, updated_at = excluded.updated_at
            """, [projectId, caps, now])
    }
}
