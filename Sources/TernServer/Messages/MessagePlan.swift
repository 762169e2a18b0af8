import Foundation
import TernProtocol

/// A message request checked field by field and turned into what the outbox stores. Every refusal
/// says what to change; nothing is queued for a request that fails here.
///
/// ```swift
/// let plan = try MessagePlan(request, publicId: "m_3fa2c1d9e8b7a6f5")
/// plan.template.maxSize(publicIdLength: 18)   // ≤ 4096
/// ```
struct MessagePlan: Sendable, Equatable {
    /// The payload's template; an A/B test's first version's.
    var template: PushPayloadBuilder.Template
    /// An A/B test's versions; empty for one version.
    var variants: [VariantPayload]
    /// The share of the audience an A/B test goes to first; nil: all of it.
    var variantSample: Int? = nil
    var pushType: PushType
    var priority: Int?
    var timeToLive: Int?
    var collapseId: String?
    var topic: String?
    var environment: APNsEnvironment

    /// Priorities APNs takes.
    static var priorities: Set<Int> { APNsHeaderFields.priorities }
    /// 28 days: the longest time to live FCM keeps a message.
    static let maxTimeToLive = 28 * 24 * 3600

    /// - Parameters:
    ///   - request: The message as asked.
    ///   - publicId: Its public id, which each push's id starts with.
    ///   - sentAt: When it is sent (ms since 1970): a Live Activity's `timestamp`.
    init(_ request: MessageRequest, publicId: String, sentAt: Int64 = ServerClock.milliseconds()) throws(APIError) {
        try ControlGroup.check(request)
        if let live = request.liveActivity {
            try MessageAudienceRules.check(request.audience)
            template = try LiveActivityMessage.template(
                live, of: request, sentAt: sentAt, pushIdLength: publicId.utf8.count)
            variants = []
            pushType = .liveActivity
            priority = request.priority
            try Self.text(request.topic, "topic", max: 256)
            timeToLive = try Self.timeToLive(request.timeToLive)
            collapseId = nil
            topic = request.topic
            environment = try Self.environment(request.environment)
            return
        }
        guard request.audience.type != .liveActivity else {
            throw .badRequest(
                "audience type live_activity goes with live_activity (the update or end its devices get)")
        }
        let pushType = try Self.pushType(request.pushType)
        let background = pushType == .background
        if background { try Self.checkBackground(request) }
        try MessageVariants.check(request, background: background)
        try MessageVariants.checkSample(request)
        try MessageTrigger.check(request)
        // A personalized message is checked, and its stored payload made, as a person with none of
        // its fields sees it: a URL with a placeholder is a URL once rendered.
        let personal = !(try Personalization.fields(request)).isEmpty
        try Self.text(request.sound, "sound", max: 256)
        try Self.text(request.threadId, "thread_id", max: 256)
        try Self.text(request.topic, "topic", max: 256)
        if let category = request.category {
            guard FieldName.isValid(category) else {
                throw .badRequest(
                    "category \(category.prefix(64)) is not valid: letters, digits, _ and -, up to 64 (a category of "
                        + "the resource)")
            }
        }
        if let badge = request.badge, !(0...999_999).contains(badge) {
            throw .badRequest("badge must be 0 to 999999, not \(badge) (0 removes the badge)")
        }
        self.priority = try Self.priority(request.priority, background: background)
        _ = try Self.timeToLive(request.timeToLive)
        try Self.checkTiming(request)
        if let collapseId = request.collapseId {
            guard !collapseId.isEmpty, collapseId.utf8.count <= APNsHeaderFields.maxCollapseIdBytes else {
                throw .badRequest("collapse_id must be 1 to \(APNsHeaderFields.maxCollapseIdBytes) bytes (APNs' limit)")
            }
        }
        let environment = try Self.environment(request.environment)

        if let variants = request.variants {
            // Each version is checked and encoded as a message of its own; a refusal names it.
            let split = MessageVariants.split(variants, sample: request.testAudiencePercent)
            var payloads: [VariantPayload] = []
            for (index, variant) in variants.enumerated() {
                do throws(APIError) {
                    let version = request.applying(variant)
                    let template = try Self.template(
                        personal ? Personalization.withFallbacks(version) : version, background: background,
                        pushIdLength: publicId.utf8.count + MessageVariants.pushIdPart(index).utf8.count)
                    payloads.append(
                        VariantPayload(percent: split.percents[index], prefix: template.prefix, suffix: template.suffix)
                    )
                } catch {
                    throw .badRequest("\(MessageVariants.name(index)): \(error.reason)")
                }
            }
            self.variants = payloads
            self.variantSample = request.testAudiencePercent
            self.template = PushPayloadBuilder.Template(prefix: payloads[0].prefix, suffix: payloads[0].suffix)
        } else {
            self.variants = []
            self.template = try Self.template(
                personal ? Personalization.withFallbacks(request) : request, background: background,
                pushIdLength: publicId.utf8.count)
        }
        try MessageLocalizations.check(request, background: background, pushIdLength: publicId.utf8.count)
        try MessageAudienceRules.check(request.audience)
        self.pushType = pushType
        self.timeToLive = request.timeToLive
        self.collapseId = request.collapseId
        self.topic = request.topic
        self.environment = environment
    }

    /// What a device sees of `request` (the fields a version may replace), checked, and its
    /// payload's template, whose largest payload (with a push id of `pushIdLength` before the
    /// delivery's id) fits APNs' limit.
    static func template(_ request: MessageRequest, background: Bool, pushIdLength: Int) throws(APIError)
        -> PushPayloadBuilder.Template
    {
        let localization = try AlertLocalization(request)
        if !background {
            guard Self.present(request.title) || Self.present(request.body) || localization.showsText else {
                throw .badRequest(
                    "an alert push needs a title or a body (or their keys in the app's strings, title_loc_key or "
                        + "body_loc_key; or send push_type background)")
            }
        }
        if request.inbox == true, localization.showsText, !Self.present(request.title), !Self.present(request.body) {
            throw .badRequest(
                "an inbox copy shows the message's own title and body (the inbox does not read the app's strings): "
                    + "give a title or a body beside title_loc_key and body_loc_key")
        }
        try Self.text(request.title, "title", max: 1024)
        try Self.text(request.subtitle, "subtitle", max: 1024)
        try Self.text(request.body, "body", max: 4096)
        try Self.iosCategory(request)
        let mediaURL = try request.mediaURL.map { text throws(APIError) in try MessageURLs.media(text) }
        let clickURL = try request.clickURL.map { text throws(APIError) in try MessageURLs.link(text, "click_url") }
        let buttons = try MessageButtons.check(request.buttons ?? [])
        var data = request.data ?? [:]
        for key in data.keys where key == "aps" || key == TernPushPayload.key {
            throw .badRequest("data may not have the key \(key): aps and tern belong to the payload itself")
        }
        // A push kept in the inbox says so, so the app syncs its inbox when it arrives.
        if request.inbox == true { data[InboxPush.payloadKey] = .bool(true) }

        let track = TernPushPayload.Tracking(
            delivery: request.trackDelivery ?? !background, open: request.trackOpen ?? !background)
        var content = PushPayloadBuilder.Content(
            title: request.title, subtitle: request.subtitle, body: request.body, badge: request.badge,
            sound: request.sound, threadId: request.threadId, category: request.iosCategory, background: background,
            mediaURL: mediaURL,
            buttons: buttons, clickURL: clickURL, track: track, data: data)
        content.presentation = try NotificationPresentation(request)
        content.localization = localization
        let template: PushPayloadBuilder.Template
        do {
            template = try PushPayloadBuilder.template(content)
        } catch let error as APIError {
            throw error
        } catch {
            throw .badRequest("the payload cannot be encoded as JSON: \(error)")
        }
        let size = template.maxSize(publicIdLength: pushIdLength)
        guard size <= APNsHeaderFields.maxPayloadBytes else {
            throw .badRequest(
                "the payload would be \(size) bytes, over APNs' limit of \(APNsHeaderFields.maxPayloadBytes): shorten "
                    + "the body, title or custom data")
        }
        return template
    }

    static func timeToLive(_ ttl: Int?) throws(APIError) -> Int? {
        if let ttl, !(0...Self.maxTimeToLive).contains(ttl) {
            throw .badRequest(
                "time_to_live must be 0 to \(Self.maxTimeToLive) seconds (28 days), not \(ttl); 0 means now or never")
        }
        return ttl
    }

    /// When the provider should stop trying, in ms since 1970; 0 means now or never.
    func expiration(createdAt: Int64) -> Int64? {
        guard let timeToLive else { return nil }
        return timeToLive == 0 ? 0 : createdAt + Int64(timeToLive) * 1000
    }

    static func present(_ text: String?) -> Bool { !(text ?? "").isEmpty }

    static func text(_ value: String?, _ field: String, max: Int) throws(APIError) {
        guard let value else { return }
        guard !value.isEmpty else { throw .badRequest("\(field) is empty: leave it out or give it text") }
        guard TextLength.fits(value, max: max) else { throw .badRequest("\(field) is longer than \(max) characters") }
    }

    /// The longest `ios_category`: 256 characters, as for `thread_id`.
    static let maxIOSCategory = 256

    /// `ios_category` names one of the app's own categories: text, outside Tern's reserved `tern.`
    /// space, and not beside `buttons`, whose category Tern makes itself.
    static func iosCategory(_ request: MessageRequest) throws(APIError) {
        guard let category = request.iosCategory else { return }
        try text(category, "ios_category", max: maxIOSCategory)
        guard !category.hasPrefix(TernPushPayload.categoryPrefix) else {
            throw .badRequest(
                "ios_category \(category.prefix(64)) starts with \(TernPushPayload.categoryPrefix), which is Tern's own: "
                    + "name a category the app registers")
        }
        guard (request.buttons ?? []).isEmpty else {
            throw .badRequest(
                "ios_category and buttons cannot go together: the buttons get a category of their own; send one or "
                    + "the other")
        }
    }

    static func pushType(_ text: String?) throws(APIError) -> PushType {
        guard let text else { return .alert }
        guard let type = PushType(rawValue: text), type != .liveActivity else {
            if text == PushType.liveActivity.rawValue {
                throw .badRequest("push_type liveactivity goes with live_activity (the activity's content)")
            }
            throw .badRequest("push_type must be alert or background, not \(text.prefix(32))")
        }
        return type
    }

    /// When the deliveries go: a throttle, a local time of day or quiet hours, one at a time, each
    /// with a time to live long enough for the wait it may put on a device.
    static func checkTiming(_ request: MessageRequest) throws(APIError) {
        if let rate = request.throttlePerMinute, !DeliveryPace.perMinute.contains(rate) {
            throw .badRequest(
                "throttle_per_minute must be 1 to \(DeliveryPace.perMinute.upperBound) deliveries a minute, not \(rate) "
                    + "(leave it out to send as fast as the providers take them)")
        }
        if let local = request.localTimeOfDay {
            _ = try LocalTimeOfDay(local)
            guard request.throttlePerMinute == nil else {
                throw .badRequest(
                    "throttle_per_minute and local_time_of_day do not go together: a local time spreads the message "
                        + "over the day already")
            }
            try Self.checkDaysTimeToLive(request, "local_time_of_day")
        }
        if request.atUsualOpenTime == true {
            guard request.throttlePerMinute == nil, request.localTimeOfDay == nil, request.quietHours == nil else {
                throw .badRequest(
                    "at_usual_open_time does not go with throttle_per_minute, local_time_of_day or quiet_hours: it "
                        + "picks each person's time itself")
            }
            try Self.checkDaysTimeToLive(request, "at_usual_open_time")
        }
        if let quiet = request.quietHours {
            let hours = try QuietHours(quiet)
            guard request.throttlePerMinute == nil, request.localTimeOfDay == nil else {
                throw .badRequest(
                    "quiet_hours does not go with throttle_per_minute or local_time_of_day: send a throttled message at "
                        + "a time of day with send_at, or pick a local time outside the quiet hours")
            }
            if let ttl = request.timeToLive, Int64(ttl) * 1000 < hours.length {
                throw .badRequest(
                    "time_to_live counts from the send time and a device may wait out the quiet hours (\(hours.length / 1000) "
                        + "seconds): give at least that, or leave it out")
            }
        }
    }

    /// A timing (`field`) that delivers up to a day after the send time needs a time to live of a
    /// day at least, as it counts from the send time.
    static func checkDaysTimeToLive(_ request: MessageRequest, _ field: String) throws(APIError) {
        if let ttl = request.timeToLive, ttl < 86_400 {
            throw .badRequest(
                "with \(field) a device gets the message up to a day after its send time, and time_to_live counts "
                    + "from the send time: give at least 86400 seconds, or leave it out")
        }
    }

    static func environment(_ text: String?) throws(APIError) -> APNsEnvironment {
        guard let text else { return .production }
        guard let environment = APNsEnvironment(rawValue: text) else {
            throw .badRequest(
                "environment must be production or sandbox (tokens of development builds), not \(text.prefix(32))")
        }
        return environment
    }

    static func priority(_ priority: Int?, background: Bool) throws(APIError) -> Int? {
        guard let priority else { return background ? 5 : nil }
        guard priorities.contains(priority) else {
            throw .badRequest("priority must be 10 (immediately), 5 (power-considerate) or 1, not \(priority)")
        }
        if background, priority != 5 {
            throw .badRequest("background pushes go with priority 5: APNs refuses others for them")
        }
        return priority
    }

    /// A background push shows nothing and wakes the app without the extension.
    static func checkBackground(_ request: MessageRequest) throws(APIError) {
        let shown: [(String, Bool)] =
            [
                ("title", request.title != nil), ("subtitle", request.subtitle != nil), ("body", request.body != nil),
                ("sound", request.sound != nil), ("badge", request.badge != nil),
                ("media_url", request.mediaURL != nil),
                ("buttons", !(request.buttons ?? []).isEmpty), ("click_url", request.clickURL != nil),
                ("ios_category", request.iosCategory != nil),
            ] + NotificationPresentation.given(request) + AlertLocalization.given(request)
        let found = shown.filter(\.1).map(\.0)
        if !found.isEmpty {
            throw .badRequest(
                "a background push shows nothing: leave out \(found.joined(separator: ", ")) or send push_type alert")
        }
        if request.trackDelivery == true || request.trackOpen == true {
            throw .badRequest(
                "a background push cannot track delivery or opens: the extension does not run and nothing is "
                    + "shown to open")
        }
    }
}
