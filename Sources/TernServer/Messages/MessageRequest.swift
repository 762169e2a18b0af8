import Foundation
import TernProtocol

/// `POST /api/v1/admin/messages`: what to send and to whom.
///
/// ```json
/// {"title": "Sale", "body": "30% off today", "media_url": "https://cdn.example.com/a.jpg",
///  "buttons": [{"id": "shop", "title": "Shop", "action": "url", "url": "https://example.com/sale"}],
///  "data": {"order_id": "A-1001"}, "time_to_live": 3600,
///  "audience": {"type": "resource", "resource_id": 1, "categories": ["news"]}}
/// ```
public struct MessageRequest: Codable, Sendable, Equatable {
    /// The project whose credentials send it; taken from the audience when left out.
    public var projectId: Int64?
    /// The notification's title (`aps.alert.title`).
    public var title: String?
    /// A line under the title (`aps.alert.subtitle`); iOS only.
    public var subtitle: String?
    /// The notification's text (`aps.alert.body`).
    public var body: String?
    /// An https URL of an image, GIF, audio or video the extension attaches.
    public var mediaURL: String?
    /// Up to four buttons under the notification; Tern registers them as a category of its own, so not
    /// with `iosCategory`.
    public var buttons: [Button]?
    /// Opened when the notification is tapped.
    public var clickURL: String?
    /// A category of the resource: subscriptions that turned it off do not get the message.
    public var category: String?
    /// The number on the app's icon (`aps.badge`); 0 clears it, absent leaves it as it is.
    public var badge: Int?
    /// A sound file in the app's bundle, or `default` (`aps.sound`); absent, a silent notification.
    public var sound: String?
    /// Notifications with the same thread id are grouped together (`aps.thread-id`).
    public var threadId: String?
    /// Custom data: top-level keys of the payload, beside `aps` and `tern`.
    public var data: [String: JSONValue]?
    /// APNs priority: 10 (immediately), 5 (power-considerate) or 1; background pushes go with 5.
    public var priority: Int?
    /// Seconds the provider keeps trying; 0 means now or never; absent, the provider's default.
    public var timeToLive: Int?
    /// A notification with the same collapse id replaces an earlier one on the device (`apns-collapse-id`).
    public var collapseId: String?
    /// `alert` (default) or `background`.
    public var pushType: String?
    /// Whether the extension reports delivery and the app reports opens (both default true).
    public var trackDelivery: Bool?
    /// Whether the app reports that the notification was opened (default true).
    public var trackOpen: Bool?
    /// The APNs topic (bundle id); absent, the credential's.
    public var topic: String?
    /// `production` (default) or `sandbox`: which APNs gateway the tokens belong to.
    public var environment: String?
    /// True: each person the push reaches also finds it in their inbox (title, body, media as the
    /// image, click URL as the link, data).
    public var inbox: Bool?
    /// A notification category the app registered itself (`aps.category`, e.g. `ORDER_V1`): iOS shows
    /// that category's actions. Not with `buttons` (Tern makes those a category of its own).
    public var iosCategory: String?
    /// True: a test send. The message goes only to the test devices of its project (subscriptions
    /// marked `is_test` and the push subscriptions of test profiles), in the audience's resource when
    /// it names one, not to the audience; refused when there is none.
    public var test: Bool?
    /// When to send it (ms since 1970), up to 30 days ahead; nil or a time already past sends it now.
    /// The audience is read then, not when the message is made; its time to live counts from then.
    public var sendAt: Int64?
    /// At most this many deliveries a minute (1 to 1,000,000), spread evenly over each minute from
    /// the send time in steps of a second, so the opens that follow do not all reach the app's
    /// backend at once; absent, as fast as the providers take them. Its time to live still counts
    /// from the send time: a device whose turn comes after it closes as expired.
    public var throttlePerMinute: Int?
    /// Sent when each device's clock shows this time of day (`HH:MM`, 24-hour), by the device's own
    /// time zone (its `_os_tz` field, which the SDK sends; UTC for a device without one): the first
    /// such moment at or after the send time, so within a day of it. Not with ``throttlePerMinute``;
    /// a ``timeToLive`` with it is at least a day, as it counts from the send time.
    public var localTimeOfDay: String?
    /// A device whose own clock (as for ``localTimeOfDay``) is between `from` and `to` at the send
    /// time gets the message when its clock reaches `to`; the others at once. Not with
    /// ``throttlePerMinute`` or ``localTimeOfDay``; a ``timeToLive`` with it is at least as long as the
    /// quiet time.
    public var quietHours: QuietHours?
    /// True: each device gets it when its person's usual open time comes round, the hour of day in
    /// which they opened the most of the project's pushes, within a day of the send time; a person
    /// who opened none yet gets it at once. Not with ``throttlePerMinute``, ``localTimeOfDay`` or
    /// ``quietHours``; a ``timeToLive`` with it is at least a day.
    public var atUsualOpenTime: Bool?
    /// True: the message goes to each person of its audience even when they reached the project's
    /// frequency cap (a receipt, a password reset); it still counts toward the cap.
    public var ignoreFrequencyCap: Bool?
    /// An A/B test: 2 to 10 versions (``Variant``), each a share of the audience with its own
    /// title, body, media, link, buttons or data; each device gets one, and the stats count
    /// deliveries and opens by version. Alert pushes only.
    public var variants: [Variant]?
    /// With ``variants``: only this share of the audience (1 to 99 percent, chosen by subscription)
    /// gets the test; the rest are held back for the version `POST …/messages/{id}/winner` picks.
    public var testAudiencePercent: Int?
    /// With ``testAudiencePercent``: this many minutes after the send (1 to 43,200, 30 days), the
    /// server picks the version with the most opens per device and sends it to the devices the
    /// test held back, as `POST …/messages/{id}/winner` would; an operator may pick one first.
    public var winnerAfterMinutes: Int?
    /// With ``winnerAfterMinutes``: what makes a version the winner, `opens` (the default: the
    /// most opens per device) or `conversions` (the most devices that opened it and then reached a
    /// goal naming the push, per device; ``winnerGoal`` narrows them to one goal).
    public var winnerBy: String?
    /// With ``winnerBy`` `conversions`: only goals of this event name count (e.g. `purchase`).
    public var winnerGoal: String?
    /// Set by the server on the message that sends an A/B test's winner: the test and the share it
    /// tested; this message goes to the devices the test held back. Refused from a client.
    public var winnerOf: WinnerOf?
    /// An ActivityKit push in place of a notification: a Live Activity's update or end (to audience
    /// type `live_activity`), or its start (to the push-to-start tokens of a profile, profiles or a
    /// resource). With it, the message has only ``title``, ``body`` and ``sound`` (the alert),
    /// ``priority``, ``timeToLive``, ``sendAt``, ``topic`` and ``environment`` besides.
    public var liveActivity: LiveActivityContent?
    /// Sent to each person of the audience who reaches a goal, after a delay, unless they reach a
    /// cancelling goal first: one standing message until it is cancelled (``MessageTrigger``).
    public var trigger: MessageTrigger?
    /// Sent again every few days, or on chosen days of the week, to its audience as it is then, a
    /// copy a time, until a last time or until it is cancelled (`repeat`, ``MessageRecurrence``).
    public var recurrence: MessageRecurrence?
    /// Set by the server on a copy of a recurring message with `repeat.weekdays` and
    /// ``localTimeOfDay``: the listed day the copy is for, as its midnight in UTC (ms since 1970).
    /// Each device gets the copy at ``localTimeOfDay`` on that day by its own clock (at once if that
    /// has passed when the copy is made). Refused from a client.
    public var localDay: Int64?
    /// The title, subtitle, body, click URL and media in other languages, by language code (`es`,
    /// `pt-BR`): each device gets its own language's (``MessageLocalization``).
    public var localizations: [String: MessageLocalization]?
    /// The alert's texts as keys of the app's own `Localizable.strings`, which the device looks up
    /// in its language (`aps.alert.title-loc-key`, `subtitle-loc-key`, `loc-key`), with the values
    /// their format fills in (`…-loc-args`, `loc-args`). ``title`` and ``body`` are then what a
    /// device shows when the app has no such key.
    public var titleLocKey: String?
    /// The values the title key's format fills in, in order (`aps.alert.title-loc-args`).
    public var titleLocArgs: [String]?
    /// The subtitle's key (`aps.alert.subtitle-loc-key`).
    public var subtitleLocKey: String?
    /// The values the subtitle key's format fills in (`aps.alert.subtitle-loc-args`).
    public var subtitleLocArgs: [String]?
    /// The body's key (`aps.alert.loc-key`).
    public var bodyLocKey: String?
    /// The values the body key's format fills in (`aps.alert.loc-args`).
    public var bodyLocArgs: [String]?
    /// How the notification interrupts (`aps.interruption-level`, iOS 15 and later): `passive`
    /// (quietly, into the list), `active` (the system's default), `time-sensitive` (through Focus and
    /// the scheduled summary; the app needs the Time Sensitive Notifications capability) or `critical`
    /// (its sound through the mute switch and Focus; the app needs Apple's critical alerts
    /// entitlement).
    public var interruptionLevel: String?
    /// 0 to 1: which of the app's notifications the summary puts first (`aps.relevance-score`).
    public var relevanceScore: Double?
    /// The id of the app's window (scene) that opening it brings forward (`aps.target-content-id`).
    public var targetContentId: String?
    /// The app's Focus filter value that decides whether a Focus lets it through
    /// (`aps.filter-criteria`).
    public var filterCriteria: String?
    /// A saved template of the message's project (`GET /api/v1/admin/templates`): its content fills
    /// every content field this request leaves out (title, body, media, buttons, data, ...); a field
    /// given here wins. The message keeps the merged content, so a later edit or deletion of the
    /// template never changes it.
    public var templateId: Int64?
    /// A control group: this share of the audience's people (1 to 50 percent), chosen by person so
    /// that all of a person's devices go together, gets nothing; the stats compare how many of them
    /// reached ``conversionGoal`` with how many of the people it went to (`control_group`). Not with
    /// ``test``, ``trigger``, ``recurrence``, ``liveActivity``, a background push or
    /// ``testAudiencePercent``.
    public var controlPercent: Int?
    /// With ``controlPercent`` (and only with it): the goal (`event_name`) whose people count as
    /// converted, e.g. `purchase`.
    public var conversionGoal: String?
    /// With ``controlPercent``: how long after the send a goal counts, 1 to 720 hours; 72 when
    /// absent.
    public var conversionWindowHours: Int?
    var audience: MessageAudience

    /// The A/B test whose held-back devices a winner's message goes to.
    public struct WinnerOf: Codable, Sendable, Equatable {
        /// The test's message (its public id).
        public var messageId: String
        /// Its version that won (`b`).
        public var variant: String
        /// The share of the audience it tested.
        public var testAudiencePercent: Int
        /// The test's message's row id, whose devices' buckets say who was held back.
        var key: Int64

        enum CodingKeys: String, CodingKey {
            case variant, key
            case messageId = "message_id"
            case testAudiencePercent = "test_audience_percent"
        }
    }

    /// A notification button as the API takes it; `action` is `open`, `url` or `dismiss`.
    public struct Button: Codable, Sendable, Equatable {
        public var id: String
        var title: String
        var action: String
        var url: String?

        /// A button.
        ///
        /// - Parameters:
        ///   - id: The action's identifier the app sees when it is tapped.
        ///   - title: The button's text.
        ///   - action: `open` (opens the app), `url` (opens `url`) or `dismiss`.
        ///   - url: The link an `url` button opens; nil for the other actions.
        public init(id: String, title: String, action: String, url: String? = nil) {
            self.id = id
            self.title = title
            self.action = action
            self.url = url
        }
    }

    /// Quiet hours on each device's clock, `HH:MM` to `HH:MM` (24-hour; `from` after `to` crosses
    /// midnight).
    public struct QuietHours: Codable, Sendable, Equatable {
        /// When the quiet time starts, `22:00`.
        public var from: String
        /// When it ends, `08:00`: a device in it gets the message then.
        public var to: String

        /// Quiet hours from `from` to `to`.
        public init(from: String, to: String) {
            self.from = from
            self.to = to
        }
    }

    /// A message to `audience` with nothing else set: set the content (``title``, ``body``, ...) before
    /// sending it.
    ///
    /// - Parameter audience: Who gets the message.
    public init(audience: MessageAudience) {
        self.audience = audience
    }

    enum CodingKeys: String, CodingKey {
        case title, subtitle, body, buttons, category, badge, sound, data, priority, topic, environment, audience, inbox
        case test, variants
        case testAudiencePercent = "test_audience_percent"
        case winnerOf = "winner_of"
        case winnerAfterMinutes = "winner_after_minutes"
        case winnerBy = "winner_by"
        case winnerGoal = "winner_goal"
        case iosCategory = "ios_category"
        case projectId = "project_id"
        case mediaURL = "media_url"
        case clickURL = "click_url"
        case threadId = "thread_id"
        case timeToLive = "time_to_live"
        case collapseId = "collapse_id"
        case pushType = "push_type"
        case trackDelivery = "track_delivery"
        case trackOpen = "track_open"
        case sendAt = "send_at"
        case throttlePerMinute = "throttle_per_minute"
        case localTimeOfDay = "local_time_of_day"
        case atUsualOpenTime = "at_usual_open_time"
        case ignoreFrequencyCap = "ignore_frequency_cap"
        case quietHours = "quiet_hours"
        case liveActivity = "live_activity"
        case trigger
        case recurrence = "repeat"
        case localDay = "local_day"
        case localizations
        case interruptionLevel = "interruption_level"
        case titleLocKey = "title_loc_key"
        case titleLocArgs = "title_loc_args"
        case subtitleLocKey = "subtitle_loc_key"
        case subtitleLocArgs = "subtitle_loc_args"
        case bodyLocKey = "body_loc_key"
        case bodyLocArgs = "body_loc_args"
        case relevanceScore = "relevance_score"
        case targetContentId = "target_content_id"
        case filterCriteria = "filter_criteria"
        case templateId = "template_id"
        case controlPercent = "control_percent"
        case conversionGoal = "conversion_goal"
        case conversionWindowHours = "conversion_window_hours"
    }
}

/// Who gets a message: exactly one kind, named by `type`.
///
/// - `profile`: `profile_id` (the profile's public id): its push subscriptions;
/// - `profiles`: `profile_ids`, up to 1,000;
/// - `token`: `provider` and `token`, one device;
/// - `topic`: `topic`, the push subscriptions of the topic's followers in the message's project;
/// - `segment`: `segment_id`, a saved segment of the message's project: its filter, on its resource
///   (or every resource of the project); a segment that matches nothing is refused (409);
/// - `resource`: every push subscription of `resource_id`, narrowed by `categories` (each active),
///   `fields` (custom fields equal to these values) and `tags` (each key present, equal to the value unless null),
///   and by `filter` (an ``AudienceExpression``: comparisons on built-in and custom fields and tags,
///   with and/or); a filter that matches nothing is refused (409).
///
/// Whatever the kind: only subscribed subscriptions, never a token marked invalid, never one that
/// turned the message's category off.
public struct MessageAudience: Codable, Sendable, Equatable {
    /// For `token`: the provider, when `provider` names one Tern knows (`MessageRules` refuses a
    /// message whose provider it does not).
    var pushProvider: PushProvider? { provider.flatMap(PushProvider.init(rawValue:)) }

    /// Which kind of audience this is; it decides which of the other properties are read.
    public var type: AudienceType
    /// For `profile`: the profile's public id.
    public var profileId: String?
    /// For `profiles`: the profiles' public ids, up to 1,000.
    public var profileIds: [String]?
    /// For `token`: the token's provider, e.g. `ios-apns`.
    public var provider: String?
    /// For `token`: the device's push token.
    public var token: String?
    /// For `resource`; for the other kinds it narrows to subscriptions of that resource.
    public var resourceId: Int64?
    /// Only `subscribed`: suspended and unsubscribed subscriptions never get pushes.
    var status: String?
    /// For `resource`: only subscriptions with each of these categories active.
    public var categories: [String]?
    /// For `resource`: only subscriptions whose custom fields equal these values.
    public var fields: [String: JSONValue]?
    /// For `resource`: only subscriptions with each of these tags, equal to its value unless the value
    /// is null (then any value).
    public var tags: [String: String?]?
    /// For `topic`: the topic's name.
    public var topic: String?
    /// For `resource`: an ``AudienceExpression``'s JSON that narrows it; for `segment`, the
    /// segment's filter as it was when the message was made (set by the server).
    public var filter: JSONValue?
    /// For `segment`: the segment's id.
    public var segmentId: Int64?
    /// For `live_activity`: the app's id of the activity, whose devices' tokens get the update or end.
    public var activityId: String?

    /// An audience of kind `type`; set the properties that kind reads (see ``MessageAudience``) and
    /// leave the others nil.
    ///
    /// - Parameters:
    ///   - type: The kind of audience.
    ///   - profileId: For `profile`: the profile's public id.
    ///   - profileIds: For `profiles`: up to 1,000 public ids.
    ///   - provider: For `token`: the token's provider.
    ///   - token: For `token`: the push token.
    ///   - resourceId: For `resource`; narrows the other kinds to that resource.
    ///   - status: Only `subscribed` is accepted.
    ///   - categories: For `resource`: categories each subscription must have active.
    ///   - fields: For `resource`: custom fields each subscription must equal.
    ///   - tags: For `resource`: tags each subscription must have (with that value unless null).
    ///   - topic: For `topic`: the topic's name.
    ///   - filter: For `resource`: an ``AudienceExpression``'s JSON that narrows it.
    ///   - segmentId: For `segment`: the saved segment's id.
    ///   - activityId: For `live_activity`: the app's id of the activity.
    public init(
        type: AudienceType, profileId: String? = nil, profileIds: [String]? = nil, provider: String? = nil,
        token: String? = nil, resourceId: Int64? = nil, status: String? = nil, categories: [String]? = nil,
        fields: [String: JSONValue]? = nil, tags: [String: String?]? = nil, topic: String? = nil,
        filter: JSONValue? = nil, segmentId: Int64? = nil, activityId: String? = nil
    ) {
        self.activityId = activityId
        self.topic = topic
        self.filter = filter
        self.segmentId = segmentId
        self.type = type
        self.profileId = profileId
        self.profileIds = profileIds
        self.provider = provider
        self.token = token
        self.resourceId = resourceId
        self.status = status
        self.categories = categories
        self.fields = fields
        self.tags = tags
    }

    static let maxProfiles = 1000

    enum CodingKeys: String, CodingKey {
        case type, provider, token, status, categories, fields, tags, topic, filter
        case segmentId = "segment_id"
        case activityId = "activity_id"
        case profileId = "profile_id"
        case profileIds = "profile_ids"
        case resourceId = "resource_id"
    }
}

/// Who a message is for: one profile, several, one device, a resource's subscriptions, a topic's
/// followers, or a saved segment.
public enum AudienceType: String, Codable, Sendable, CaseIterable {
    /// One profile's push subscriptions (`profile_id`).
    case profile
    /// The push subscriptions of up to 1,000 profiles (`profile_ids`).
    case profiles
    /// One device (`provider` and `token`).
    case token
    /// A resource's push subscriptions (`resource_id`), narrowed by categories, fields, tags or a filter.
    case resource
    /// The push subscriptions of a topic's followers (`topic`).
    case topic
    /// A saved segment of the project (`segment_id`).
    case segment
    /// The devices that registered a token for a Live Activity (`activity_id`), for a message's
    /// `live_activity` update or end.
    case liveActivity = "live_activity"

    /// Refuses another type with the reason a person can act on.
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let type = AudienceType(rawValue: text) else {
            let known = Self.allCases.map(\.rawValue).joined(separator: ", ")
            throw APIError.badRequest("audience.type must be one of \(known), not \(text.prefix(32))")
        }
        self = type
    }
}
