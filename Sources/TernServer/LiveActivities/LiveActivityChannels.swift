import Foundation
import TernProtocol

/// `POST /api/v1/admin/projects/{project_id}/live-activity-channels`: an APNs broadcast channel for
/// the project's app, made through APNs' channel management service and kept under `name`.
///
/// ```json
/// {"name": "match-4471", "apns_environment": "production", "storage": "most_recent"}
/// ```
public struct LiveActivityChannelCreateRequest: Codable, Sendable, Equatable {
    /// The project's name for it (letters, digits, `-`, `_`, `.` and `:`, at most 128): what
    /// broadcasts and the SDK's `live-activity/channel` name it by.
    public var name: String
    /// `production` (the default) or `sandbox`: a channel lives in one APNs environment, and only
    /// the devices of that environment can subscribe to it.
    public var apnsEnvironment: APNsEnvironment?
    /// What APNs keeps for a device that is offline: `most_recent` (the default, the newest push)
    /// or `none`.
    public var storage: String?

    /// - Parameters:
    ///   - name: The project's name for the channel.
    ///   - apnsEnvironment: The channel's APNs environment; nil: production.
    ///   - storage: `most_recent` or `none`; nil: `most_recent`.
    public init(name: String, apnsEnvironment: APNsEnvironment? = nil, storage: String? = nil) {
        self.name = name
        self.apnsEnvironment = apnsEnvironment
        self.storage = storage
    }

    enum CodingKeys: String, CodingKey {
        case name, storage
        case apnsEnvironment = "apns_environment"
    }
}

/// A broadcast channel as the management API shows it.
struct LiveActivityChannelView: Codable, Sendable, Equatable {
    var name: String
    var apnsEnvironment: APNsEnvironment
    /// APNs' id of the channel (`apns-channel-id`, base64): what an app passes to ActivityKit's
    /// `PushType.channel(_:)`.
    var channelId: String
    var storage: String
    var createdAt: Int64
    /// Broadcasts APNs accepted on it.
    var broadcasts: Int64
    var lastEvent: String?
    var lastBroadcastAt: Int64?

    enum CodingKeys: String, CodingKey {
        case name, storage, broadcasts
        case apnsEnvironment = "apns_environment"
        case channelId = "channel_id"
        case createdAt = "created_at"
        case lastEvent = "last_event"
        case lastBroadcastAt = "last_broadcast_at"
    }

    init(_ stored: StoredLiveActivityChannel) {
        name = stored.name
        apnsEnvironment = stored.apnsEnvironment
        channelId = stored.channelId
        storage = stored.storage
        createdAt = stored.createdAt
        broadcasts = stored.broadcasts
        lastEvent = stored.lastEvent
        lastBroadcastAt = stored.lastBroadcastAt
    }
}

/// `POST …/live-activity-channels/{name}/broadcasts`: one ActivityKit push to every device
/// subscribed to the channel (an `update` or the activity's `end`), with an optional alert.
///
/// ```json
/// {"event": "update", "content_state": {"home": 2, "away": 1, "minute": 67},
///  "title": "Goal!", "body": "2–1 in the 67th minute", "priority": 10}
/// ```
public struct LiveActivityBroadcastRequest: Codable, Sendable, Equatable {
    /// `update` or `end`.
    public var event: String
    /// The activity's dynamic content (`content-state`): required for `update`.
    public var contentState: [String: JSONValue]?
    /// Seconds since 1970 after which the content shows as out of date.
    public var staleDate: Int64?
    /// `end`: seconds since 1970 when the system removes the activity.
    public var dismissalDate: Int64?
    /// 0 to 100: which of the app's activities the system shows first.
    public var relevanceScore: Double?
    /// An alert that comes with the update: its title, body and sound.
    public var title: String?
    /// The alert's body.
    public var body: String?
    /// The alert's sound, e.g. `default`.
    public var sound: String?
    /// 10 (the default: at once, within the app's budget) or 5.
    public var priority: Int?
    /// Seconds APNs keeps the push for devices that are offline (a `most_recent` channel); nil:
    /// APNs' own.
    public var ttl: Int64?

    /// - Parameters:
    ///   - event: `update` or `end`.
    ///   - contentState: The activity's dynamic content; required for `update`.
    ///   - staleDate: Seconds since 1970 after which the content shows as out of date.
    ///   - dismissalDate: For `end`, seconds since 1970 when the activity goes.
    ///   - relevanceScore: 0 to 100.
    ///   - title: The alert's title.
    ///   - body: The alert's body.
    ///   - sound: The alert's sound.
    ///   - priority: 10 or 5; nil: 10.
    ///   - ttl: Seconds APNs keeps the push for offline devices; nil: APNs' own.
    public init(
        event: String, contentState: [String: JSONValue]? = nil, staleDate: Int64? = nil, dismissalDate: Int64? = nil,
        relevanceScore: Double? = nil, title: String? = nil, body: String? = nil, sound: String? = nil,
        priority: Int? = nil, ttl: Int64? = nil
    ) {
        self.event = event
        self.contentState = contentState
        self.staleDate = staleDate
        self.dismissalDate = dismissalDate
        self.relevanceScore = relevanceScore
        self.title = title
        self.body = body
        self.sound = sound
        self.priority = priority
        self.ttl = ttl
    }

    enum CodingKeys: String, CodingKey {
        case event, title, body, sound, priority, ttl
        case contentState = "content_state"
        case staleDate = "stale_date"
        case dismissalDate = "dismissal_date"
        case relevanceScore = "relevance_score"
    }

    var content: LiveActivityContent {
        LiveActivityContent(
            event: event, contentState: contentState, staleDate: staleDate, dismissalDate: dismissalDate,
            relevanceScore: relevanceScore)
    }
}

/// What APNs said of a broadcast it accepted.
struct LiveActivityBroadcastAnswer: Codable, Sendable, Equatable {
    var name: String
    var apnsEnvironment: APNsEnvironment
    var event: String
    var sentAt: Int64
    /// `apns-request-id`.
    var apnsRequestId: String?
    /// `apns-unique-id` (development environment): the push in APNs' delivery log.
    var apnsUniqueId: String?

    enum CodingKeys: String, CodingKey {
        case name, event
        case apnsEnvironment = "apns_environment"
        case sentAt = "sent_at"
        case apnsRequestId = "apns_request_id"
        case apnsUniqueId = "apns_unique_id"
    }
}

/// The rules of channels and broadcasts, in one place.
enum LiveActivityChannelRules {
    static let maxNameLength = LiveActivityChannelRequest.maxNameLength
    /// APNs' limit for a broadcast's payload, in bytes.
    static let maxPayloadBytes = 5120
    /// The longest `ttl`: 28 days.
    static let maxTTL: Int64 = 28 * 24 * 3600

    /// A channel's name: it goes in paths, so letters, digits and `-_.:` only.
    static func name(_ name: String, field: String = "name") throws(APIError) {
        guard !name.isEmpty else { throw .badRequest("\(field) is empty: name the channel, e.g. match-4471") }
        guard name.count <= maxNameLength else {
            throw .badRequest("\(field) is longer than \(maxNameLength) characters")
        }
        guard
            name.unicodeScalars.allSatisfy({
                $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "-_.:".unicodeScalars.contains($0))
            })
        else {
            throw .badRequest(
                "\(field) \"\(name.prefix(64))\" may have letters, digits, -, _, . and : only (it goes in the channel's URL)"
            )
        }
    }

    static func storage(_ storage: String?) throws(APIError) -> APNsChannelClient.Storage {
        guard let storage else { return .mostRecent }
        guard let known = APNsChannelClient.Storage(rawValue: storage) else {
            throw .badRequest("storage must be most_recent or none, not \(storage.prefix(32))")
        }
        return known
    }

    static func check(_ request: LiveActivityBroadcastRequest) throws(APIError) {
        guard request.event == "update" || request.event == "end" else {
            throw .badRequest(
                "event must be update or end, not \(request.event.prefix(32)): a channel's activities are started "
                    + "on the devices (or by a start message to their push-to-start tokens)")
        }
        try LiveActivityMessage.checkContent(request.content)
        try LiveActivityMessage.checkAlert(title: request.title, body: request.body, sound: request.sound)
        if let priority = request.priority, priority != 5, priority != 10 {
            throw .badRequest("priority must be 10 (at once, within the app's budget) or 5")
        }
        if let ttl = request.ttl, !(0...maxTTL).contains(ttl) {
            throw .badRequest("ttl must be 0 to \(maxTTL) seconds (28 days)")
        }
    }

    /// The broadcast's payload, at most ``maxPayloadBytes``.
    static func payload(_ request: LiveActivityBroadcastRequest, sentAt: Int64) throws(APIError) -> Data {
        let aps = LiveActivityMessage.aps(
            request.content, title: request.title, body: request.body, sound: request.sound, sentAt: sentAt)
        guard let payload = try? JSONCoders.encoder.encode(JSONValue.object(["aps": .object(aps)])) else {
            throw .badRequest("the broadcast's payload cannot be encoded as JSON")
        }
        guard payload.count <= maxPayloadBytes else {
            throw .badRequest(
                "the broadcast's payload would be \(payload.count) bytes, over APNs' limit of \(maxPayloadBytes): "
                    + "shorten content_state or the alert")
        }
        return payload
    }

    /// APNs' refusal as the management API's answer.
    static func apiError(_ error: APNsChannelError, channel: String) -> APIError {
        switch (error.status, error.reason) {
        case (nil, _):
            return APIError(status: 503, reason: "\(error): try again")
        case (_, "ChannelNotRegistered"), (_, "BadChannelId"):
            return .conflict(
                "\(error): APNs no longer knows channel \(channel); remove it (DELETE …/live-activity-channels/"
                    + "\(channel)) and create it again")
        case (_, "CannotCreateChannelConfig"):
            return .conflict("\(error): the app has the most channels APNs allows (10,000 an environment); remove some")
        case (_, "FeatureNotEnabled"):
            return .conflict("\(error): turn on the Broadcast capability of the app's id in Apple's developer account")
        case (403, _):
            return .conflict("\(error): check the team id, key id, .p8 key and topic of the project's APNs credentials")
        case (429, _):
            return APIError(status: 429, reason: "\(error): too many requests to APNs, try again later")
        case (let status?, _) where status >= 500:
            return APIError(status: 503, reason: "\(error): try again")
        default:
            return APIError(status: 502, reason: "\(error)")
        }
    }
}
