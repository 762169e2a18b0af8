import Foundation
import TernProtocol

/// ActivityKit's tokens, kept as subscriptions of the device's person and resource on the channels
/// `live_activity` (keyed by the activity's id) and
/// `live_activity_start` (keyed by the activity type), and the audiences of
/// Live Activity messages read from them.
public protocol LiveActivityQueries {
    /// The token row of one device (`hashId`) of a person for the activity or type `key`.
    func liveActivityToken(profileId: Int64, channel: SubscriptionChannel, key: String, hashId: String) throws
        -> Subscription?
    /// Writes a new token row under `key`.
    func addLiveActivityToken(_ values: SubscriptionValues, key: String, now: Int64) throws
    /// The update tokens of the project's activity `activityId`, after `cursor`, by id, at most `limit`.
    func liveActivityCandidates(projectId: Int64, activityId: String, after cursor: Int64, limit: Int) throws
        -> [AudienceCandidate]
    /// The push-to-start tokens for `activityType` of a resource's devices, after `cursor`, by id.
    func liveActivityStartCandidates(resourceId: Int64, activityType: String, after cursor: Int64, limit: Int) throws
        -> [AudienceCandidate]
    /// A person's push-to-start tokens for `activityType`.
    func liveActivityStartCandidates(profileId: Int64, activityType: String) throws -> [AudienceCandidate]
}
