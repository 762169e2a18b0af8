import Foundation
import TernProtocol

/// Everything Tern keeps about a person, in one answer (`GET /api/v1/admin/profiles/{profile_id}/export`):
/// for a request to see one's data, or to take it elsewhere. Read in one transaction, so the parts
/// agree with one another.
struct ProfileExport: Encodable, Sendable {
    var profileId: String
    var exportedAt: Int64
    /// Its fields and subscriptions with their tags, as `GET …/profiles/{profile_id}` shows them.
    var profile: ProfileView
    var goals: [GoalRecord]
    /// Its devices' delivery and open reports, newest first.
    var pushEvents: [PushEventRecord]
    /// Its inbox's messages that are not removed or expired.
    var inbox: [InboxMessage]
    var preferences: PreferenceMap
    var topics: [String]
    var identityBindings: [ExportedBinding]
    /// Its opens by hour of day (UTC, 24 counts from midnight), as messages sent at each person's
    /// usual open time read them; nil before its first open was counted.
    var opensByHour: [Int]?

    enum CodingKeys: String, CodingKey {
        case profile, goals, inbox, preferences, topics
        case profileId = "profile_id"
        case exportedAt = "exported_at"
        case pushEvents = "push_events"
        case identityBindings = "identity_bindings"
        case opensByHour = "opens_by_hour"
    }

    static func read(_ tx: any StoreTransaction, publicId: String, now: Int64) throws -> ProfileExport {
        guard let profile = try tx.profile(publicId: publicId) else {
            throw APIError.notFound("profile \(publicId.prefix(64)) does not exist")
        }
        return ProfileExport(
            profileId: profile.publicId, exportedAt: now, profile: try AdminService.view(tx, profile),
            goals: try tx.goals(profileId: profile.id),
            pushEvents: try tx.pushEvents(profileId: profile.id, limit: Int(Int32.max)),
            inbox: try tx.liveInboxMessages(profileId: profile.id, now: now, limit: InboxLimits.maxMessages).map(
                \.wire),
            preferences: try tx.preferences(profileId: profile.id),
            topics: try tx.followedTopics(profileId: profile.id, dbId: profile.dbId),
            identityBindings: try tx.identityBindings(profileId: profile.id),
            opensByHour: try tx.openHourCounts(profileIds: [profile.id])[profile.id])
    }
}
