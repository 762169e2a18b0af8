import Foundation
import TernProtocol

/// The tokens a Live Activity message goes to, a chunk at a time: an update or end to every token
/// of the activity in the message's project; a start to the push-to-start tokens for its type of
/// a resource's devices (by id, as a resource's fan-out walks) or of each named person. Only
/// subscribed tokens that no provider called invalid since they were written.
enum LiveActivityAudience {
    struct Chunk {
        var admitted: [AudienceCandidate]
        var cursor: Int64
        var done: Bool
    }

    /// `environment`: the message's APNs environment. A start on a channel goes only to the tokens
    /// of the channel's environment, which is the message's: a channel of one environment is unknown
    /// to the devices of the other.
    static func chunk(
        _ tx: any StoreTransaction, _ live: LiveActivityContent, audience: MessageAudience, projectId: Int64,
        environment: APNsEnvironment, after cursor: Int64, limit: Int
    ) throws -> Chunk {
        var candidates: [AudienceCandidate] = []
        var next = cursor
        var done = true
        switch audience.type {
        case .liveActivity:
            candidates = try tx.liveActivityCandidates(
                projectId: projectId, activityId: audience.activityId ?? "", after: cursor, limit: limit)
            next = candidates.last?.subscription.id ?? cursor
            done = candidates.count < limit
        case .resource:
            candidates = try tx.liveActivityStartCandidates(
                resourceId: audience.resourceId ?? 0, activityType: live.activityType ?? "", after: cursor, limit: limit
            )
            next = candidates.last?.subscription.id ?? cursor
            done = candidates.count < limit
        case .profile, .profiles:
            for publicId in FanOut.profileIds(audience) {
                guard let profile = try tx.profile(publicId: publicId) else { continue }
                candidates += try tx.liveActivityStartCandidates(
                    profileId: profile.id, activityType: live.activityType ?? "")
            }
        case .token, .topic, .segment:
            break  // refused when the message was made (LiveActivityMessage.check)
        }
        let onChannel = live.event == "start" && live.channel != nil
        let admitted = candidates.filter {
            $0.subscription.status == .subscribed && !$0.subscription.token.isEmpty && !$0.tokenIsInvalid
                && (!onChannel || ($0.subscription.apnsEnvironment ?? environment) == environment)
        }
        return Chunk(admitted: admitted, cursor: next, done: done)
    }
}
