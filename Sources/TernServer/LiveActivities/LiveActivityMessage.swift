import Foundation
import TernProtocol

/// A message's `live_activity`: an ActivityKit push (`apns-push-type: liveactivity`, to the topic
/// `<bundle id>.push-type.liveactivity`) in place of a notification.
///
/// ```json
/// {"live_activity": {"event": "update", "content_state": {"status": "On its way", "eta": 12}},
///  "audience": {"type": "live_activity", "activity_id": "order-1001"}}
/// {"live_activity": {"event": "start", "activity_type": "DeliveryAttributes",
///    "attributes": {"order": "1001"}, "content_state": {"status": "Preparing"}},
///  "title": "Your order", "body": "We are preparing it",
///  "audience": {"type": "profile", "profile_id": "p_9c1e"}}
/// ```
///
/// `update` and `end` go to every device that registered a token for the activity
/// (`live-activity/token` with `activity_id`); `start` goes to the push-to-start tokens for
/// `activity_type` of its audience's devices (a profile, profiles or a resource).
public struct LiveActivityContent: Codable, Sendable, Equatable {
    /// `update`, `end` or `start`.
    public var event: String
    /// `start`: the app's `ActivityAttributes` type (`attributes-type`) whose push-to-start tokens
    /// the audience's devices registered.
    public var activityType: String?
    /// The activity's dynamic content (`content-state`): required for `update` and `start`; an
    /// `end`'s final content, when given.
    public var contentState: [String: JSONValue]?
    /// `start`: the activity's static attributes (`attributes`).
    public var attributes: [String: JSONValue]?
    /// When the system shows the content as out of date (`stale-date`), in seconds since 1970.
    public var staleDate: Int64?
    /// `end`: when the system removes the ended activity (`dismissal-date`), in seconds since 1970;
    /// a time already past removes it at once; absent, the system's own (up to four hours).
    public var dismissalDate: Int64?
    /// Which of the app's activities the system shows first (`relevance-score`), 0 to 100.
    public var relevanceScore: Double?
    /// `start`: the project's broadcast channel (its name) the started activity subscribes to
    /// (`input-push-channel`, iOS 18), instead of sending back a token of its own; the start then goes
    /// to the push-to-start tokens of the channel's APNs environment (the message's `environment`).
    public var channel: String?

    /// An ActivityKit push's content.
    ///
    /// - Parameters:
    ///   - event: `update`, `end` or `start`.
    ///   - activityType: For `start`, the `ActivityAttributes` type's name.
    ///   - contentState: The dynamic content.
    ///   - attributes: For `start`, the static attributes.
    ///   - staleDate: Seconds since 1970 after which the content is shown as stale.
    ///   - dismissalDate: For `end`, seconds since 1970 when the activity goes.
    ///   - relevanceScore: 0 to 100.
    ///   - channel: For `start`, the project's broadcast channel the activity subscribes to.
    public init(
        event: String, activityType: String? = nil, contentState: [String: JSONValue]? = nil,
        attributes: [String: JSONValue]? = nil, staleDate: Int64? = nil, dismissalDate: Int64? = nil,
        relevanceScore: Double? = nil, channel: String? = nil
    ) {
        self.event = event
        self.activityType = activityType
        self.contentState = contentState
        self.attributes = attributes
        self.staleDate = staleDate
        self.dismissalDate = dismissalDate
        self.relevanceScore = relevanceScore
        self.channel = channel
    }

    enum CodingKeys: String, CodingKey {
        case event, attributes, channel
        case activityType = "activity_type"
        case contentState = "content_state"
        case staleDate = "stale_date"
        case dismissalDate = "dismissal_date"
        case relevanceScore = "relevance_score"
    }
}

/// The rules of a Live Activity message and its payload, in one place.
enum LiveActivityMessage {
    static let events: Set<String> = ["update", "end", "start"]
    /// APNs' topic for ActivityKit pushes is the app's bundle id with this after it.
    static let topicSuffix = ".push-type.liveactivity"
    /// What a `start` audience may be: people, or a resource's devices.
    static let startAudiences: Set<AudienceType> = [.profile, .profiles, .resource]

    /// Checks `live` and what goes with it in `request`; returns the payload's template, whose
    /// `timestamp` is `sentAt` (ms since 1970): ActivityKit drops an update older than the last. A
    /// start names `channelId` (APNs' id of its ``LiveActivityContent/channel``) once the channel was
    /// found: until then, and without a channel, it asks for the activity's own token.
    static func template(
        _ live: LiveActivityContent, of request: MessageRequest, sentAt: Int64, pushIdLength: Int,
        channelId: String? = nil
    ) throws(APIError) -> PushPayloadBuilder.Template {
        try check(live, request)
        var aps = aps(live, title: request.title, body: request.body, sound: request.sound, sentAt: sentAt)
        if live.event == "start" {
            aps["attributes-type"] = .string(live.activityType ?? "")
            aps["attributes"] = .object(live.attributes ?? [:])
            if let channelId {
                // The started activity follows the channel's broadcasts.
                aps["input-push-channel"] = .string(channelId)
            } else {
                // The started activity's own update token comes back through the SDK.
                aps["input-push-token"] = .int(1)
            }
        }
        let made = try? PushPayloadBuilder.template { pushId in
            .object(["aps": .object(aps), TernPushPayload.key: .object(["message_id": .string(pushId)])])
        }
        guard let template = made else { throw .badRequest("the Live Activity's payload cannot be encoded as JSON") }
        let size = template.maxSize(publicIdLength: pushIdLength)
        guard size <= APNsHeaderFields.maxPayloadBytes else {
            throw .badRequest(
                "the Live Activity's payload would be \(size) bytes, over APNs' limit of "
                    + "\(APNsHeaderFields.maxPayloadBytes): shorten content_state or attributes")
        }
        return template
    }

    /// The `aps` of an ActivityKit push of `live`, sent at `sentAt` (ms since 1970), with its alert:
    /// a message's to each device, and a broadcast's to a channel alike.
    static func aps(_ live: LiveActivityContent, title: String?, body: String?, sound: String?, sentAt: Int64)
        -> [String: JSONValue]
    {
        var aps: [String: JSONValue] = [
            "timestamp": .int(sentAt / 1000), "event": .string(live.event),
        ]
        if let state = live.contentState { aps["content-state"] = .object(state) }
        if let stale = live.staleDate { aps["stale-date"] = .int(stale) }
        if let dismissal = live.dismissalDate { aps["dismissal-date"] = .int(dismissal) }
        if let score = live.relevanceScore { aps["relevance-score"] = .double(score) }
        var alert: [String: JSONValue] = [:]
        if let title { alert["title"] = .string(title) }
        if let body { alert["body"] = .string(body) }
        if let sound { alert["sound"] = .string(sound) }
        if !alert.isEmpty { aps["alert"] = .object(alert) }
        return aps
    }

    /// The rules of an ActivityKit push's own content, for a message and a broadcast alike.
    static func checkContent(_ live: LiveActivityContent) throws(APIError) {
        guard events.contains(live.event) else {
            throw .badRequest("live_activity.event must be update, end or start, not \(live.event.prefix(32))")
        }
        if live.event != "end", live.contentState == nil {
            throw .badRequest(
                "live_activity.content_state is required for \(live.event): the activity's dynamic content")
        }
        if live.dismissalDate != nil, live.event != "end" {
            throw .badRequest("live_activity.dismissal_date goes with end only")
        }
        for (field, value) in [("stale_date", live.staleDate), ("dismissal_date", live.dismissalDate)] {
            if let value, value < 0 { throw .badRequest("live_activity.\(field) must be seconds since 1970") }
        }
        if let score = live.relevanceScore, !(score.isFinite && (0...100).contains(score)) {
            throw .badRequest("live_activity.relevance_score must be 0 to 100")
        }
    }

    /// The alert that comes with an ActivityKit push, a message's or a broadcast's.
    static func checkAlert(title: String?, body: String?, sound: String?) throws(APIError) {
        try MessagePlan.text(title, "title", max: 1024)
        try MessagePlan.text(body, "body", max: 4096)
        try MessagePlan.text(sound, "sound", max: 256)
    }

    static func check(_ live: LiveActivityContent, _ request: MessageRequest) throws(APIError) {
        try checkContent(live)
        let start = live.event == "start"
        if start {
            guard let type = live.activityType else {
                throw .badRequest(
                    "live_activity.activity_type is required for start: the ActivityAttributes type's name")
            }
            try LiveActivityNames.type(type, field: "live_activity.activity_type")
            if let channel = live.channel { try LiveActivityChannelRules.name(channel, field: "live_activity.channel") }
            guard live.attributes != nil else {
                throw .badRequest("live_activity.attributes is required for start: the activity's static attributes")
            }
            guard MessagePlan.present(request.title) || MessagePlan.present(request.body) else {
                throw .badRequest("a Live Activity start needs a title or a body: the alert that comes with it")
            }
            guard startAudiences.contains(request.audience.type) else {
                throw .badRequest(
                    "a Live Activity start goes to audience type profile, profiles or resource (the devices' "
                        + "push-to-start tokens), not \(request.audience.type.rawValue)")
            }
        } else {
            for (field, given) in [
                ("activity_type", live.activityType != nil), ("attributes", live.attributes != nil),
                ("channel", live.channel != nil),
            ] where given {
                throw .badRequest("live_activity.\(field) goes with start only (the activity has them already)")
            }
            guard request.audience.type == .liveActivity else {
                throw .badRequest(
                    "a Live Activity \(live.event) goes to audience type live_activity with activity_id (the devices "
                        + "that registered a token for it), not \(request.audience.type.rawValue)")
            }
        }
        try checkAlert(title: request.title, body: request.body, sound: request.sound)
        let notification: [(String, Bool)] =
            [
                ("subtitle", request.subtitle != nil), ("media_url", request.mediaURL != nil),
                ("buttons", request.buttons != nil), ("click_url", request.clickURL != nil),
                ("category", request.category != nil), ("badge", request.badge != nil),
                ("thread_id", request.threadId != nil), ("data", request.data != nil),
                ("collapse_id", request.collapseId != nil), ("track_delivery", request.trackDelivery != nil),
                ("track_open", request.trackOpen != nil), ("inbox", request.inbox != nil),
                ("ios_category", request.iosCategory != nil), ("test", request.test != nil),
                ("throttle_per_minute", request.throttlePerMinute != nil),
                ("local_time_of_day", request.localTimeOfDay != nil), ("quiet_hours", request.quietHours != nil),
                ("at_usual_open_time", request.atUsualOpenTime != nil), ("variants", request.variants != nil),
                ("test_audience_percent", request.testAudiencePercent != nil),
                ("winner_after_minutes", request.winnerAfterMinutes != nil),
                ("ignore_frequency_cap", request.ignoreFrequencyCap != nil),
                ("localizations", request.localizations != nil),
            ] + NotificationPresentation.given(request) + AlertLocalization.given(request)
        if let stray = notification.first(where: \.1) {
            throw .badRequest(
                "\(stray.0) does not go with live_activity: an ActivityKit push has the activity's content, an "
                    + "alert's title, body and sound, a priority and a time to live")
        }
        if let type = request.pushType, type != PushType.liveActivity.rawValue {
            throw .badRequest("push_type \(type.prefix(32)) does not go with live_activity (it is liveactivity)")
        }
        if request.priority.map({ $0 != 5 && $0 != 10 }) == true {
            throw .badRequest("a Live Activity's priority is 10 (at once, within the app's budget) or 5")
        }
        if !(try Personalization.fields(request)).isEmpty {
            throw .badRequest("{{…}} placeholders do not go with live_activity: every device gets the same content")
        }
    }
}
