import Foundation
import TernProtocol

extension DashboardService {
    /// How many devices a message would go to now, after the message's own checks: the same
    /// filter and the same one-delivery-per-device rule as the fan-out (for a test send, its test devices).
    func audienceSize(_ request: MessageRequest, keyProject: Int64? = nil) async throws -> Int {
        _ = try MessagePlan(request, publicId: "m_preview")
        return try await store.read { tx in
            let request = try SegmentAudience.resolve(tx, request, keyProject: keyProject)
            let scope = try MessageScope.resolve(tx, request, keyProject: keyProject)
            if request.test == true {
                let test = try TestSend.candidates(tx, projectId: scope.projectId, request: request)
                return Set(test.map(\.subscription.deviceKey)).count
            }
            let audience = request.audience
            let filtered = try SegmentAudience.checked(tx, audience, projectId: scope.projectId)
            let now = ServerClock.milliseconds()
            let filter = AudienceFilter(audience, category: request.category)
            var devices = Set<String>()
            func admit(_ candidates: [AudienceCandidate]) throws {
                for candidate in candidates {
                    let tags = filter.needsTags ? try tx.tags(subscriptionId: candidate.subscription.id) : nil
                    if filter.admits(candidate, tags: tags) {
                        devices.insert(candidate.subscription.deviceKey)
                    }
                }
            }
            if let live = request.liveActivity {
                var cursor: Int64 = 0
                while true {
                    let chunk = try LiveActivityAudience.chunk(
                        tx, live, audience: audience, projectId: scope.projectId,
                        environment: (try? MessagePlan.environment(request.environment)) ?? .production, after: cursor,
                        limit: 5000)
                    for candidate in chunk.admitted { devices.insert(candidate.subscription.deviceKey) }
                    guard !chunk.done else { break }
                    cursor = chunk.cursor
                }
                return devices.count
            }
            switch audience.type {
            case .liveActivity:
                break
            case .resource, .segment:
                var cursor: Int64 = 0
                while true {
                    let chunk =
                        try filtered.map {
                            try tx.pushCandidates(
                                $0.0, filter: $0.1, now: now, after: cursor, limit: 5000, reading: filter.reads)
                        }
                        ?? tx.pushCandidates(
                            resourceId: audience.resourceId ?? 0, after: cursor, limit: 5000, reading: filter.reads)
                    try admit(chunk)
                    guard chunk.count == 5000, let last = chunk.last else { break }
                    cursor = last.subscription.id
                }
            case .token:
                try admit(
                    try audience.pushProvider.map {
                        try tx.pushCandidates(
                            projectId: scope.projectId, provider: $0, token: audience.token ?? "",
                            reading: filter.reads)
                    } ?? [])
            case .profile, .profiles:
                for publicId in FanOut.profileIds(audience) {
                    guard let profile = try tx.profile(publicId: publicId) else { continue }
                    try admit(try tx.pushCandidates(profileId: profile.id, reading: filter.reads))
                }
            case .topic:
                for profileId in try InboxAudience.profileIds(tx, audience, projectId: scope.projectId) {
                    try admit(try tx.pushCandidates(profileId: profileId, reading: filter.reads))
                }
            }
            return devices.count
        }
    }

    /// `POST /api/v1/admin/audience/size`'s answer.
    struct AudienceSize: Encodable, Sendable {
        /// Devices (provider and token) the message would be delivered to.
        var devices: Int
    }
}
