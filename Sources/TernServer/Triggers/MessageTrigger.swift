import Foundation
import TernProtocol

/// A message's `trigger`: the message is sent to each person of its audience who reaches a goal
/// (`event_name`), `delay_minutes` after it, unless they reach `cancel_event_name` first; one
/// message, whose statistics count every person it went to, until it is cancelled.
///
/// Without `reentry_after_minutes` a person gets it once. With it, a person who reaches the goal
/// again at least that long after the message last went to them starts a new wait and gets it
/// again: their second time through round 2 (`m_3fa2c1d9e8b7a6f5-2`, a message row of its own, so
/// each device still gets each message once), their third through round 3, and so on.
///
/// ```json
/// {"title": "Still thinking it over?", "body": "Your cart is waiting",
///  "trigger": {"event_name": "cart_abandoned", "delay_minutes": 60, "cancel_event_name": "purchase",
///              "reentry_after_minutes": 10080},
///  "audience": {"type": "resource", "resource_id": 1}}
/// ```
public struct MessageTrigger: Codable, Sendable, Equatable {
    /// The goal (`event/post`'s `event_name`) that sends the message to its person.
    public var eventName: String
    /// How long after the goal the message goes (0 to 43,200 minutes, 30 days); 0: at once.
    public var delayMinutes: Int?
    /// A goal that, reached before the message went, keeps it from going (e.g. `purchase`).
    public var cancelEventName: String?
    /// How long after the message last went to a person their goal sends it to them again (1 to
    /// 525,600 minutes, a year); nil: a person gets it once.
    ///
    /// Counted from when it last *went*, not from when their last wait began: a wait their
    /// cancelling goal ended sent nothing, so their next goal brings the message (the next
    /// abandoned cart after a purchase gets its reminder), and two sends to one person are never
    /// closer than this (plus the delay), whatever the delay. A goal while their wait runs, or
    /// before this time is up, changes nothing.
    public var reentryAfterMinutes: Int?
    /// With ``tagSet``: the tag whose new value starts the person's wait; required with it, refused
    /// with any other event.
    public var tag: String?
    /// With ``tagSet``: the value ``tag`` must take; nil: any value it did not have before.
    public var tagValue: String?
    /// With ``fieldSet``: the profile field whose new value starts the person's wait; required
    /// with it, refused with any other event.
    public var field: String?
    /// With ``fieldSet``: the value ``field`` must take, a string, number or boolean; nil: any
    /// value it did not have before.
    public var fieldValue: JSONValue?
    /// With ``inAppClicked`` or ``inAppShown``: the in-app campaign (its id, as the management API
    /// gives it) whose event starts the person's wait; required with them, refused with any other event.
    public var campaignId: String?
    /// With ``inAppClicked``: the id of the campaign's button the tap must be on; nil: any button.
    public var button: String?

    /// A trigger.
    ///
    /// - Parameters:
    ///   - eventName: The goal that sends the message.
    ///   - delayMinutes: How long after it; default nil (at once).
    ///   - cancelEventName: A goal that keeps a waiting message from going; default nil.
    ///   - reentryAfterMinutes: How long after it went the goal sends it to a person again; default
    ///     nil (once a person).
    ///   - tag: With ``tagSet``, the tag that starts the wait; default nil.
    ///   - tagValue: With ``tagSet``, the value it must take; default nil (any value).
    ///   - field: With ``fieldSet``, the profile field that starts the wait; default nil.
    ///   - fieldValue: With ``fieldSet``, the value it must take; default nil (any value).
    ///   - campaignId: With ``inAppClicked`` or ``inAppShown``, the campaign whose event starts the wait;
    ///     default nil.
    ///   - button: With ``inAppClicked``, the button the tap must be on; default nil (any button).
    public init(
        eventName: String, delayMinutes: Int? = nil, cancelEventName: String? = nil, reentryAfterMinutes: Int? = nil,
        tag: String? = nil, tagValue: String? = nil, field: String? = nil, fieldValue: JSONValue? = nil,
        campaignId: String? = nil, button: String? = nil
    ) {
        self.eventName = eventName
        self.delayMinutes = delayMinutes
        self.cancelEventName = cancelEventName
        self.reentryAfterMinutes = reentryAfterMinutes
        self.tag = tag
        self.tagValue = tagValue
        self.field = field
        self.fieldValue = fieldValue
        self.campaignId = campaignId
        self.button = button
    }

    enum CodingKeys: String, CodingKey {
        case eventName = "event_name"
        case delayMinutes = "delay_minutes"
        case cancelEventName = "cancel_event_name"
        case reentryAfterMinutes = "reentry_after_minutes"
        case tag
        case tagValue = "tag_value"
        case field
        case fieldValue = "field_value"
        case campaignId = "campaign_id"
        case button
    }

    /// The event the server notes itself when a person's push subscription in the message's
    /// resource becomes subscribed (`push/subscribe` making one, or subscribing one that was
    /// unsubscribed or suspended; a goal's push subscription likewise): a welcome message.
    ///
    /// ```json
    /// {"title": "Welcome!", "trigger": {"event_name": "$subscribed", "delay_minutes": 10},
    ///  "audience": {"type": "resource", "resource_id": 1}}
    /// ```
    public static let subscribed = "$subscribed"

    /// The event the server notes itself when `profile/tags/set` gives a device's subscription in the
    /// message's resource ``tag`` a value it did not have (``tagValue`` when given): the wait is the
    /// person's the tags call answers. A repeat of the same value starts nothing; a device import's
    /// tags start nothing.
    ///
    /// ```json
    /// {"title": "Welcome to Premium",
    ///  "trigger": {"event_name": "$tag_set", "tag": "plan", "tag_value": "premium", "delay_minutes": 10},
    ///  "audience": {"type": "resource", "resource_id": 1}}
    /// ```
    public static let tagSet = "$tag_set"

    /// The events starting with `$` the server notes itself.
    static let noted: Set<String> = [subscribed, tagSet, fieldSet, inAppClicked, inAppShown]

    /// The longest delay: 30 days.
    static let maxDelayMinutes = 43_200
    /// The longest time before a person may get the message again: a year.
    static let maxReentryMinutes = 525_600

    /// The delay in milliseconds.
    var delay: Int64 { Int64(delayMinutes ?? 0) * 60_000 }
    /// The re-entry time in milliseconds; nil: once a person.
    var reentry: Int64? { reentryAfterMinutes.map { Int64($0) * 60_000 } }

    /// Checks the trigger and what goes with it: a resource's devices (narrowed by categories,
    /// fields or tags, not by a filter), sent when each person's goal comes, so no time of its own.
    static func check(_ request: MessageRequest) throws(APIError) {
        guard let trigger = request.trigger else { return }
        try Validation.text(trigger.eventName, field: "trigger.event_name")
        if GoalEvent.isReserved(trigger.eventName), !noted.contains(trigger.eventName) {
            throw .badRequest(
                "trigger.event_name \"\(trigger.eventName.prefix(64))\" is not an event the server notes: of the "
                    + "names starting with $, it supports \(subscribed) (when a device subscribes), \(tagSet) "
                    + "(when a device's tag is set, with trigger.tag), \(fieldSet) (when a profile field is set, "
                    + "with trigger.field), \(inAppShown) and \(inAppClicked) (when a person sees an in-app campaign or "
                    + "taps one of its buttons, with trigger.campaign_id); any other goal is named without $")
        }
        for change in SetChange.all(of: trigger) { try change.check(trigger.eventName) }
        if let cancel = trigger.cancelEventName {
            try Validation.text(cancel, field: "trigger.cancel_event_name")
            guard !GoalEvent.isReserved(cancel) else {
                throw .badRequest(
                    "trigger.cancel_event_name \"\(cancel.prefix(64))\" starts with $: a message is cancelled by a "
                        + "goal the app posts (e.g. purchase), not by an event the server notes")
            }
            guard cancel != trigger.eventName else {
                throw .badRequest("trigger.cancel_event_name must differ from trigger.event_name")
            }
        }
        if let minutes = trigger.delayMinutes, !(0...maxDelayMinutes).contains(minutes) {
            throw .badRequest("trigger.delay_minutes must be 0 to \(maxDelayMinutes) (30 days), not \(minutes)")
        }
        if let minutes = trigger.reentryAfterMinutes, !(1...maxReentryMinutes).contains(minutes) {
            throw .badRequest(
                "trigger.reentry_after_minutes must be 1 to \(maxReentryMinutes) (a year), not \(minutes): how long "
                    + "after the message went to a person their goal sends it again; leave it out to send it once a "
                    + "person")
        }
        guard request.audience.type == .resource, request.audience.filter == nil else {
            throw .badRequest(
                "a triggered message goes to audience type resource (each person's devices in it, narrowed by "
                    + "categories, fields or tags), without a filter")
        }
        let timed: [(String, Bool)] = [
            ("send_at", request.sendAt != nil), ("time_to_live", request.timeToLive != nil),
            ("throttle_per_minute", request.throttlePerMinute != nil),
            ("local_time_of_day", request.localTimeOfDay != nil), ("quiet_hours", request.quietHours != nil),
            ("at_usual_open_time", request.atUsualOpenTime != nil), ("variants", request.variants != nil),
            ("test", request.test != nil), ("live_activity", request.liveActivity != nil),
        ]
        if let stray = timed.first(where: \.1) {
            throw .badRequest(
                "\(stray.0) does not go with trigger: a triggered message goes to each person when their goal "
                    + "comes (cancel it to stop it)")
        }
    }
}

/// The triggers of every project, read from the store at most every two seconds: what `event/post`
/// checks each goal against, and `push/subscribe` each subscription that became subscribed, without
/// a query of its own.
public final class TriggerDirectory: Sendable {
    /// A standing triggered message.
    public struct Entry: Sendable, Equatable {
        var messageId: Int64
        var eventName: String
        var cancelEventName: String?
        var delay: Int64
        /// ``MessageTrigger/reentry``: nil, once a person.
        var reentry: Int64? = nil
        /// The audience's resource: where a subscription sends a welcome (``MessageTrigger/subscribed``)
        /// or a tag starts a wait (``MessageTrigger/tagSet``).
        var resourceId: Int64? = nil
        /// ``MessageTrigger/tag``: with ``MessageTrigger/tagSet``, the tag that starts a wait.
        var tag: String? = nil
        /// ``MessageTrigger/tagValue``: the value it must take; nil, any.
        var tagValue: String? = nil
        /// ``MessageTrigger/field``: with ``MessageTrigger/fieldSet``, the profile field that starts a wait.
        var field: String? = nil
        /// ``MessageTrigger/fieldValue``: the value it must take; nil, any.
        var fieldValue: JSONValue? = nil
        /// ``MessageTrigger/campaignId``: with an in-app event, the campaign whose event starts a wait.
        var campaignId: Int64? = nil
        /// ``MessageTrigger/button``: with ``MessageTrigger/inAppClicked``, the button; nil, any.
        var button: String? = nil
    }

    /// The triggers by project, the welcomes and the tags' messages by their resource, the
    /// profile fields' messages by project, and the in-app events' messages by their campaign.
    struct Reading: Sendable {
        var byProject: [Int64: [Entry]]
        var welcomes: [Int64: [Entry]]
        var tagSets: [Int64: [Entry]]
        var fieldSets: [Int64: [Entry]]
        var inAppEvents: [Int64: [Entry]]

        init(_ byProject: [Int64: [Entry]]) {
            self.byProject = byProject
            welcomes = [:]
            tagSets = [:]
            inAppEvents = [:]
            fieldSets = byProject.compactMapValues { entries in
                let found = entries.filter { $0.eventName == MessageTrigger.fieldSet && $0.field != nil }
                return found.isEmpty ? nil : found
            }
            for entry in byProject.values.joined() {
                if let campaignId = entry.campaignId,
                    [MessageTrigger.inAppClicked, MessageTrigger.inAppShown].contains(entry.eventName)
                {
                    inAppEvents[campaignId, default: []].append(entry)
                }
                guard let resourceId = entry.resourceId else { continue }
                switch entry.eventName {
                case MessageTrigger.subscribed: welcomes[resourceId, default: []].append(entry)
                case MessageTrigger.tagSet where entry.tag != nil: tagSets[resourceId, default: []].append(entry)
                default: continue
                }
            }
        }
    }

    private let reading = StoreReading<Reading>()

    /// An empty directory: the first question reads the store.
    public init() {}

    /// `projectId`'s triggers not cancelled, read from `tx` when the last reading is older than two seconds.
    func triggers(_ tx: any StoreTransaction, projectId: Int64, now: Int64) throws -> [Entry] {
        try value(tx, now: now).byProject[projectId] ?? []
    }

    /// The welcomes (``MessageTrigger/subscribed``) of `resourceId` not cancelled: what a subscription
    /// that became subscribed there starts; read as ``triggers(_:projectId:now:)`` is.
    func welcomes(_ tx: any StoreTransaction, resourceId: Int64, now: Int64) throws -> [Entry] {
        try value(tx, now: now).welcomes[resourceId] ?? []
    }

    /// The messages of `resourceId` a set tag starts (``MessageTrigger/tagSet``), not cancelled;
    /// read as ``triggers(_:projectId:now:)`` is.
    func tagSets(_ tx: any StoreTransaction, resourceId: Int64, now: Int64) throws -> [Entry] {
        try value(tx, now: now).tagSets[resourceId] ?? []
    }

    /// The messages of `projectId` a profile field's new value starts (``MessageTrigger/fieldSet``),
    /// not cancelled; read as ``triggers(_:projectId:now:)`` is.
    func fieldSets(_ tx: any StoreTransaction, projectId: Int64, now: Int64) throws -> [Entry] {
        try value(tx, now: now).fieldSets[projectId] ?? []
    }

    /// The messages an event of in-app campaign `campaignId` starts (``MessageTrigger/inAppClicked``,
    /// ``MessageTrigger/inAppShown``), not cancelled; read as ``triggers(_:projectId:now:)`` is.
    func inAppEvents(_ tx: any StoreTransaction, campaignId: Int64, now: Int64) throws -> [Entry] {
        try value(tx, now: now).inAppEvents[campaignId] ?? []
    }

    private func value(_ tx: any StoreTransaction, now: Int64) throws -> Reading {
        try reading.value(tx, now: now) { Reading(try $0.activeTriggers()) }
    }

    /// Forgets the reading: the next question reads the store (a trigger was made or cancelled here).
    func forget() { reading.forget() }
}

/// What a goal does to its person's waits: starts one for each triggered message it sends
/// (unless the person skips triggers), ends those it cancels.
enum TriggerWaits {
    static func note(
        _ tx: any StoreTransaction, goal: String, profile: Profile, triggers: [TriggerDirectory.Entry], now: Int64
    ) throws {
        let cancelled = triggers.filter { $0.cancelEventName == goal }.map(\.messageId)
        if !cancelled.isEmpty { try tx.disarmTriggers(messageIds: cancelled, profileId: profile.id) }
        guard !profile.skipTriggers else { return }
        for trigger in triggers where trigger.eventName == goal {
            try arm(tx, trigger, profile: profile, now: now)
        }
    }

    /// `profile`'s push subscription in `resourceId` became subscribed (``SubscriptionValues/becameSubscribed(from:)``):
    /// starts their wait for each welcome of the resource (unless they skip triggers), as a goal
    /// starts one. A project without welcomes pays one look at the kept directory.
    static func noteSubscribed(
        _ tx: any StoreTransaction, directory: TriggerDirectory, resourceId: Int64, profile: Profile, now: Int64
    ) throws {
        let welcomes = try directory.welcomes(tx, resourceId: resourceId, now: now)
        guard !welcomes.isEmpty, !profile.skipTriggers else { return }
        for trigger in welcomes { try arm(tx, trigger, profile: profile, now: now) }
    }

    /// `profile/tags/set` set `tags` on `profile`'s push subscription in `resourceId`, whose tags
    /// were `before`: starts their wait for each message of the resource whose tag took a value it
    /// did not have (the message's value, when it names one), unless they skip triggers. A project
    /// without such messages pays one look at the kept directory.
    static func noteTagsSet(
        _ tx: any StoreTransaction, directory: TriggerDirectory, resourceId: Int64, profile: Profile,
        before: [String: String], tags: [String: String], now: Int64
    ) throws {
        let messages = try directory.tagSets(tx, resourceId: resourceId, now: now)
        guard !messages.isEmpty, !profile.skipTriggers else { return }
        for trigger in messages {
            guard let tag = trigger.tag, let value = tags[tag], before[tag] != value,
                trigger.tagValue == nil || trigger.tagValue == value
            else { continue }
            try arm(tx, trigger, profile: profile, now: now)
        }
    }

    /// A write (``ProfileResolver/applyProfileChanges(_:to:fields:skipTriggers:knownFields:triggers:)``)
    /// made `changes` to the fields of `profile`, a profile of `projectId`, whose fields were `before`
    /// (nil in `changes`: removed): starts their wait for each message of the project whose field
    /// took a value it did not have (the message's value, when it names one), unless they skip
    /// triggers. A removal or a null starts nothing; numbers compare by value (2 and 2.0 are one).
    /// A project without such messages pays one look at the kept directory.
    static func noteFieldsSet(
        _ tx: any StoreTransaction, directory: TriggerDirectory, projectId: Int64, profile: Profile,
        before: [String: JSONValue], changes: [String: JSONValue?], now: Int64
    ) throws {
        let messages = try directory.fieldSets(tx, projectId: projectId, now: now)
        guard !messages.isEmpty, !profile.skipTriggers else { return }
        for trigger in messages {
            guard let field = trigger.field, let change = changes[field], let value = change, value != .null,
                !same(before[field], value), trigger.fieldValue.map({ same($0, value) }) ?? true
            else { continue }
            try arm(tx, trigger, profile: profile, now: now)
        }
    }

    /// Two field values are one: equal, or numbers of equal value.
    private static func same(_ old: JSONValue?, _ new: JSONValue) -> Bool {
        guard let old else { return false }
        if let a = old.doubleValue, let b = new.doubleValue { return a == b }
        return old == new
    }

    /// A log-in moved a device from `source`, its own, anonymous profile, to `target`, ending its
    /// subscription in `source`: when `source` is left without a subscribed push subscription (in
    /// any resource), its waits go with the device (``TriggerQueries/moveTriggerWaits(from:to:triggers:now:)``),
    /// so a welcome or a reminder begun before the log-in goes to the person. Callers pass only
    /// the device's anonymous profile as `source`, so a named person's waits never move (a
    /// log-out, or a log-in from one person to another); a profile that keeps another subscribed
    /// device keeps its waits. A project without triggered messages pays one look at the kept
    /// directory.
    static func follow(
        _ tx: any StoreTransaction, directory: TriggerDirectory, projectId: Int64, from source: Int64,
        to target: Int64, now: Int64
    ) throws {
        guard source != target else { return }
        let triggers = try directory.triggers(tx, projectId: projectId, now: now)
        guard !triggers.isEmpty,
            !(try tx.subscriptions(profileId: source).contains { $0.channel == .push && $0.status == .subscribed })
        else { return }
        _ = try tx.moveTriggerWaits(from: source, to: target, triggers: triggers, now: now)
    }

    /// A move by a JWT (`push/unsuspend`, a person's first subscribe after it, `push/subscribe`
    /// with `replace`), where no installation says which profile is the device's own: it is a
    /// log-in from the install's profile when the profile of the token's first subscription of
    /// `holders` (the app's first subscribe) is one whose subscription the move ended (`ended`),
    /// is named by none of the fields Tern names a person by (``personFields``), and `target` is
    /// named by one. Its waits then follow the device (``follow(_:directory:projectId:from:to:now:)``).
    /// A log-out (back to the install's profile, or away from a person who subscribed the device
    /// first) moves nothing.
    static func handOver(
        _ tx: any StoreTransaction, directory: TriggerDirectory, projectId: Int64, holders: [Subscription],
        ended: Set<Int64>, to target: Int64, now: Int64
    ) throws {
        guard let source = holders.min(by: { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) })?.profileId,
            source != target, ended.contains(source),
            !(try directory.triggers(tx, projectId: projectId, now: now)).isEmpty,
            try tx.profileFields(profileId: source).keys.allSatisfy({ !personFields.contains($0) }),
            try tx.profileFields(profileId: target).keys.contains(where: personFields.contains)
        else { return }
        try follow(tx, directory: directory, projectId: projectId, from: source, to: target, now: now)
    }

    /// The fields that name a person: a JWT's email or phone, a log-in's external id.
    static let personFields: Set<String> = [
        IdentityService.externalIdField, ProfileIdentity.emailField, ProfileIdentity.phoneField,
    ]

    static func arm(
        _ tx: any StoreTransaction, _ trigger: TriggerDirectory.Entry, profile: Profile, now: Int64
    ) throws {
        try tx.armTrigger(
            messageId: trigger.messageId, profileId: profile.id, dueAt: now + trigger.delay,
            wentBefore: trigger.reentry.map { now - $0 })
    }
}
