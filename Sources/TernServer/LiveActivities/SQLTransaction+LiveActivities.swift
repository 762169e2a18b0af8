import Foundation
import TernProtocol
import TernSQLite

/// ``LiveActivityQueries``: every read walks `subscriptions_activity` (key, channel, id), the
/// partial index of the token rows only, or a person's rows by the unique key.
extension SQLTransaction {
    func liveActivityToken(profileId: Int64, channel: SubscriptionChannel, key: String, hashId: String) throws
        -> Subscription?
    {
        try database.queryFirst(
            """
            SELECT \(Self.subscriptionColumns) FROM subscriptions s
            WHERE s.profile_id = ? AND s.channel = ? AND s.activity_key = ? AND s.hash_id = ?
            """, [profileId, channel.rawValue, key, hashId]
        ).map(Self.subscription)
    }

    func addLiveActivityToken(_ values: SubscriptionValues, key: String, now: Int64) throws {
        let row = try insertSubscription(values, now: now)
        try database.run("UPDATE subscriptions SET activity_key = ? WHERE id = ?", [key, row.id])
    }

    func liveActivityCandidates(projectId: Int64, activityId: String, after cursor: Int64, limit: Int) throws
        -> [AudienceCandidate]
    {
        try database.query(
            """
            SELECT \(Self.candidateColumns(.all)) FROM subscriptions s JOIN resources r ON r.id = s.resource_id
            WHERE s.activity_key = ? AND s.channel = 'live_activity' AND s.id > ? AND r.project_id = ?
            ORDER BY s.id LIMIT ?
            """, [activityId, cursor, projectId, limit]
        ).map(Self.candidate)
    }

    func liveActivityStartCandidates(resourceId: Int64, activityType: String, after cursor: Int64, limit: Int) throws
        -> [AudienceCandidate]
    {
        try database.query(
            """
            SELECT \(Self.candidateColumns(.all)) FROM subscriptions s
            WHERE s.activity_key = ? AND s.channel = 'live_activity_start' AND s.id > ? AND s.resource_id = ?
            ORDER BY s.id LIMIT ?
            """, [activityType, cursor, resourceId, limit]
        ).map(Self.candidate)
    }

    func liveActivityStartCandidates(profileId: Int64, activityType: String) throws -> [AudienceCandidate] {
        try database.query(
            """
            SELECT \(Self.candidateColumns(.all)) FROM subscriptions s
            WHERE s.profile_id = ? AND s.channel = 'live_activity_start' AND s.activity_key = ? ORDER BY s.id
            """, [profileId, activityType]
        ).map(Self.candidate)
    }
}
