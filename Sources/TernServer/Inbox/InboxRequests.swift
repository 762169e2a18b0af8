import Foundation
import TernProtocol

/// `POST /api/v1/admin/inbox`: a message for the inboxes of an audience (any kind `tern send` takes).
///
/// ```json
/// {"title": "Your order shipped", "body": "It arrives Friday", "link": "https://example.com/o/1",
///  "audience": {"type": "profile", "profile_id": "3f9a…"}}
/// ```
struct InboxPutRequest: Codable, Sendable, Equatable {
    /// The project; taken from the audience when left out.
    var projectId: Int64?
    var title: String?
    var body: String?
    /// An https URL of an image.
    var imageURL: String?
    /// What a tap opens: any absolute URL.
    var link: String?
    var data: [String: JSONValue]?
    /// Days the message stays; the project's expiry (90 unless set) when left out.
    var expiresInDays: Int?
    /// When it leaves the inbox, ms since 1970 (instead of `expires_in_days`): in the future, within
    /// the longest expiry.
    var expiresAt: Int64?
    var audience: MessageAudience

    /// A request for `audience`.
    init(audience: MessageAudience) { self.audience = audience }

    enum CodingKeys: String, CodingKey {
        case title, body, link, data, audience
        case projectId = "project_id"
        case imageURL = "image_url"
        case expiresInDays = "expires_in_days"
        case expiresAt = "expires_at"
    }

    /// Checks each field without the store; the reason names the field.
    func validate() throws(APIError) {
        guard MessagePlan.present(title) || MessagePlan.present(body) else {
            throw .badRequest("title, body: an inbox message needs a title or a body")
        }
        try MessagePlan.text(title, "title", max: 1024)
        try MessagePlan.text(body, "body", max: 4096)
        if let imageURL { _ = try MessageURLs.media(imageURL, "image_url") }
        if let link { _ = try MessageURLs.link(link, "link") }
        if let days = expiresInDays, !(1...InboxLimits.maxExpiryDays).contains(days) {
            throw .badRequest("expires_in_days: must be 1 to \(InboxLimits.maxExpiryDays), not \(days)")
        }
        if let expiresAt {
            guard expiresInDays == nil else { throw .badRequest("expires_at: give it or expires_in_days, not both") }
            let now = ServerClock.milliseconds()
            guard expiresAt > now, expiresAt <= now + Int64(InboxLimits.maxExpiryDays) * InboxService.day else {
                throw .badRequest(
                    "expires_at: must be in the future (ms since 1970) and within \(InboxLimits.maxExpiryDays) days")
            }
        }
        try MessageAudienceRules.check(audience)
    }

    /// The message request whose scope (project, resource) the inbox put shares.
    var messageRequest: MessageRequest {
        var request = MessageRequest(audience: audience)
        request.projectId = projectId
        return request
    }
}

/// The answer to `POST /api/v1/admin/inbox`.
struct InboxPutAnswer: Codable, Sendable, Equatable {
    /// How many inboxes got the message.
    var profiles: Int
    /// The messages' ids (the first 1,000).
    var ids: [String]
    var expiresAt: Int64

    enum CodingKeys: String, CodingKey {
        case profiles, ids
        case expiresAt = "expires_at"
    }
}

/// `GET /api/v1/admin/profiles/{profile_id}/inbox`.
struct AdminInboxView: Codable, Sendable, Equatable {
    var profileId: String
    var unread: Int
    var messages: [InboxMessage]

    enum CodingKeys: String, CodingKey {
        case unread, messages
        case profileId = "profile_id"
    }
}

/// `GET`/`PUT /api/v1/admin/projects/{project_id}/inbox`: how long a message stays.
struct InboxSettings: Codable, Sendable, Equatable {
    var expiryDays: Int

    enum CodingKeys: String, CodingKey {
        case expiryDays = "expiry_days"
    }
}

/// The profiles an audience names, for the inbox (which needs a person, not a device).
enum InboxAudience {
    static func profileIds(_ tx: any StoreTransaction, _ audience: MessageAudience, projectId: Int64) throws -> [Int64]
    {
        var ids: [Int64] = []
        switch audience.type {
        case .profile, .profiles:
            for publicId in FanOut.profileIds(audience) {
                if let profile = try tx.profile(publicId: publicId) { ids.append(profile.id) }
            }
        case .liveActivity:
            break  // devices following an activity: no inbox goes with a Live Activity
        case .topic:
            guard let topic = try tx.topicId(projectId: projectId, name: audience.topic ?? "", create: false, now: 0)
            else { return [] }
            var after: Int64 = 0
            while true {
                let page = try tx.followers(topicId: topic, afterProfileId: after, limit: 5000)
                ids += page
                guard page.count == 5000, let last = page.last else { break }
                after = last
            }
        case .token:
            let filter = AudienceFilter(audience, category: nil)
            ids = try
                (audience.pushProvider.map {
                    try tx.pushCandidates(
                        projectId: projectId, provider: $0, token: audience.token ?? "", reading: filter.reads)
                } ?? [])
                .filter { filter.admits($0, tags: nil) }.map(\.subscription.profileId)
        case .resource, .segment:
            let audience = try SegmentAudience.resolve(tx, MessageRequest(audience: audience), keyProject: projectId)
                .audience
            let filter = AudienceFilter(audience, category: nil)
            let checked = try SegmentAudience.checked(tx, audience, projectId: projectId)
            let now = ServerClock.milliseconds()
            // The pages share one transaction: engagement conditions read their lists once, kept for
            // its length under a key of its own (negative: a message's id is never one).
            let key = -Int64.random(in: 1...Int64.max)
            let engagement = checked.map { EngagementLists($0.1, sending: key, now: now) }
            if let checked, engagement?.lists.isEmpty == false {
                try tx.keepAudienceLists(messageId: key, filter: checked.1, now: now)
            }
            var after: Int64 = 0
            while true {
                let page =
                    try checked.map {
                        try tx.pushCandidates(
                            $0.0, filter: engagement?.expression ?? $0.1, now: now, after: after, limit: 5000,
                            reading: filter.reads)
                    }
                    ?? tx.pushCandidates(
                        resourceId: audience.resourceId ?? 0, after: after, limit: 5000, reading: filter.reads)
                for candidate in page {
                    let tags = filter.needsTags ? try tx.tags(subscriptionId: candidate.subscription.id) : nil
                    if filter.admits(candidate, tags: tags) { ids.append(candidate.subscription.profileId) }
                }
                guard page.count == 5000, let last = page.last else { break }
                after = last.subscription.id
            }
            if engagement?.lists.isEmpty == false { try tx.forgetAudienceLists(messageId: key) }
        }
        var seen: Set<Int64> = []
        return ids.filter { seen.insert($0).inserted }
    }
}

/// What a push kept in the inbox carries for the app.
enum InboxPush {
    /// A top-level payload key, `true` on a push whose message says `inbox: true`: the SDK's
    /// `Tern.shared.inbox.handleNotification(_:)` syncs the inbox when it sees it.
    static let payloadKey = "tern_inbox"
}
