import Foundation
import TernProtocol
import TernSQLite

/// ``LiveActivityChannelQueries``, by the table's key (project, environment, name).
extension SQLTransaction {
    private static var channelColumns: String {
        "project_id, apns_environment, name, channel_id, storage, created_at, broadcasts, last_event, last_broadcast_at"
    }

    func insertLiveActivityChannel(_ channel: StoredLiveActivityChannel) throws -> Bool {
        let inserted = try database.query(
            """
            INSERT INTO live_activity_channels (project_id, apns_environment, name, channel_id, storage, created_at)
            VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (project_id, apns_environment, name) DO NOTHING RETURNING name
            """,
            [
                channel.projectId, channel.apnsEnvironment.rawValue, channel.name, channel.channelId, channel.storage,
                channel.createdAt,
            ])
        return !inserted.isEmpty
    }

    func liveActivityChannels(projectId: Int64) throws -> [StoredLiveActivityChannel] {
        try database.query(
            """
            SELECT \(Self.channelColumns) FROM live_activity_channels WHERE project_id = ?
            ORDER BY apns_environment, name
            """, [projectId]
        ).map(Self.liveActivityChannel)
    }

    func liveActivityChannel(projectId: Int64, environment: APNsEnvironment, name: String) throws
        -> StoredLiveActivityChannel?
    {
        try database.queryFirst(
            """
            SELECT \(Self.channelColumns) FROM live_activity_channels
            WHERE project_id = ? AND apns_environment = ? AND name = ?
            """, [projectId, environment.rawValue, name]
        ).map(Self.liveActivityChannel)
    }

    func deleteLiveActivityChannel(projectId: Int64, environment: APNsEnvironment, name: String) throws -> Bool {
        try database.run(
            "DELETE FROM live_activity_channels WHERE project_id = ? AND apns_environment = ? AND name = ?",
            [projectId, environment.rawValue, name]) > 0
    }

    func recordLiveActivityBroadcast(
        projectId: Int64, environment: APNsEnvironment, name: String, event: String, at: Int64
    ) throws {
        try database.run(
            """
            UPDATE live_activity_channels SET broadcasts = broadcasts + 1, last_event = ?, last_broadcast_at = ?
            WHERE project_id = ? AND apns_environment = ? AND name = ?
            """, [event, at, projectId, environment.rawValue, name])
    }

    private static func liveActivityChannel(_ row: Connection.Row) -> StoredLiveActivityChannel {
        StoredLiveActivityChannel(
            projectId: row.requiredInt(0),
            apnsEnvironment: APNsEnvironment(rawValue: row.requiredString(1)) ?? .production,
            name: row.requiredString(2), channelId: row.requiredString(3), storage: row.requiredString(4),
            createdAt: row.requiredInt(5), broadcasts: row.requiredInt(6), lastEvent: row.string(7),
            lastBroadcastAt: row.int(8))
    }
}
