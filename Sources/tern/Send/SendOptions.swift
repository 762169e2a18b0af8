import Foundation
import TernProtocol
import TernServer

/// `tern send`'s arguments: every message field and audience as options, read into the API's own
/// ``MessageRequest``.
struct SendOptions {
    static let spec = CommandSpec(
        name: "tern send",
        usage: "tern send [options]",
        summary: """
            Sends a push through the server's management API, shows its progress until every delivery has an
            outcome, then the funnel (sent, delivered, opened, failures by reason).
            """,
        sections: [
            (
                "Message",
                [Self.templateOption] + Self.contentOptions + [
                    OptionSpec("priority", "10|5|1", "APNs priority"),
                    OptionSpec("ttl", "SECONDS", "how long the provider keeps trying (0: now or never)"),
                    OptionSpec(
                        "at", "TIME", "send it then, up to 30 days ahead: 2026-12-24T09:00:00Z (or ms since 1970)"),
                    OptionSpec(
                        "throttle", "N",
                        "at most N deliveries a minute (1 to 1000000), spread over each minute from the send time"),
                    OptionSpec(
                        "local-time", "HH:MM",
                        "each device gets it when its own clock shows this time, within a day (its _os_tz; UTC without)"
                    ),
                    OptionSpec(
                        "quiet-hours", "HH:MM-HH:MM",
                        "a device whose own clock is in these hours at the send time gets it when they end (22:00-08:00)"
                    ),
                    OptionSpec(
                        "usual-open-time",
                        "each device gets it at its person's usual open time, within a day (at once without one)"),
                    OptionSpec(
                        "ignore-cap", "send it to people who reached the project's frequency cap too (it still counts)"),
                    OptionSpec("collapse-id", "ID", "replaces the shown notification with the same id"),
                    OptionSpec("push-type", "alert|background", "background: content-available, no text"),
                    OptionSpec("no-track-delivery", "the extension does not report delivery"),
                    OptionSpec("no-track-open", "the app does not report opens"),
                    OptionSpec("topic", "BUNDLE_ID", "the APNs topic (default: the credential's)"),
                    OptionSpec(
                        "environment", "production|sandbox",
                        "the APNs gateway for tokens whose SDK did not say its own (default production)"),
                    OptionSpec("project", "ID", "the project whose credentials send it"),
                    OptionSpec("inbox", "also put it in the inbox of each person it reaches"),
                    OptionSpec(
                        "variant", "JSON", repeatable: true,
                        "an A/B test's version, 2 to 10: '{\"title\": \"B\", \"percent\": 30}' (its fields replace the message's)"
                    ),
                    OptionSpec(
                        "test-percent", "N",
                        "with --variant: test on N% of the audience; tern messages winner sends a version to the rest"),
                    OptionSpec(
                        "winner-after", "MINUTES",
                        "with --test-percent: the server sends the version with the most opens per device to the "
                            + "rest after MINUTES"),
                    OptionSpec(
                        "winner-by", "opens|conversions",
                        "with --winner-after: the most opens per device (default), or the most conversions (opens "
                            + "a goal naming the push followed)"),
                    OptionSpec("winner-goal", "NAME", "with --winner-by conversions: only this goal's conversions"),
                    OptionSpec(
                        "control-percent", "N",
                        "hold out N% of the people (1 to 50, all of a person's devices) as a control group that gets "
                            + "nothing; needs --conversion-goal"),
                    OptionSpec(
                        "conversion-goal", "NAME",
                        "with --control-percent: the goal whose people count as converted in both groups"),
                    OptionSpec(
                        "conversion-window-hours", "N",
                        "with --control-percent: how long after the send a goal counts (1 to 720, default 72)"),
                    OptionSpec(
                        "trigger", "GOAL",
                        "a standing message: each person of --resource who reaches the goal GOAL gets it (after "
                            + "--trigger-delay), until tern messages cancel; '$subscribed': a welcome, when one of "
                            + "their devices subscribes; '$tag_set': when a device's tag (--trigger-tag) is set; "
                            + "'$field_set': when one of their profile fields (--trigger-field) is set; '$inapp_clicked', "
                            + "'$inapp_shown': when they tap a button of an in-app campaign (--trigger-campaign), or see it"
                    ),
                    OptionSpec(
                        "trigger-tag", "NAME",
                        "with --trigger '$tag_set' (required there): the tag whose new value sends the message"),
                    OptionSpec(
                        "trigger-tag-value", "V",
                        "with --trigger-tag: only this value sends it (default: any value the tag did not have)"),
                    OptionSpec(
                        "trigger-field", "NAME",
                        "with --trigger '$field_set' (required there): the profile field whose new value sends the "
                            + "message"),
                    OptionSpec(
                        "trigger-field-value", "V",
                        "with --trigger-field: only this value sends it, read as JSON when it is (3, true, '\"3\"'), "
                            + "else as text (default: any value the field did not have)"),
                    OptionSpec(
                        "trigger-campaign", "ID",
                        "with --trigger '$inapp_clicked' or '$inapp_shown' (required there): the in-app campaign "
                            + "whose tap or display sends the message (tern inapp list shows the ids)"),
                    OptionSpec(
                        "trigger-button", "ID",
                        "with --trigger '$inapp_clicked': only a tap on this button of the campaign sends it "
                            + "(default: any button)"),
                    OptionSpec("trigger-delay", "MINUTES", "with --trigger: how long after the goal (default 0)"),
                    OptionSpec(
                        "trigger-cancel", "GOAL", "with --trigger: a goal that keeps a waiting message from going"),
                    OptionSpec(
                        "trigger-reentry-minutes", "N",
                        "with --trigger: a person's goal sends it again once N minutes (1 to 525600) have passed "
                            + "since it last went to them (default: once a person)"),
                    OptionSpec(
                        "repeat-every-days", "N",
                        "a copy goes to the audience every N days (1 to 90) from its first time (--at, or now), "
                            + "until --repeat-until or until cancelled"),
                    OptionSpec(
                        "repeat-weekdays", "DAYS",
                        "a copy goes to the audience on each of these days (mon,thu; UTC) at the time of day of its "
                            + "first time (--at, or now), until --repeat-until or until cancelled; with --local-time, "
                            + "on each device's own day at that time"),
                    OptionSpec(
                        "repeat-until", "TIME", "with --repeat-every-days or --repeat-weekdays: no copy after this time"
                    ),

                ]
            ),
            (
                "Live Activity (in place of a notification; --title, --body, --sound are its alert)",
                [
                    OptionSpec(
                        "live-activity", "update|end|start",
                        "an ActivityKit push: update or end goes to --activity, start to the push-to-start tokens of "
                            + "--profile, --profiles or --resource"),
                    OptionSpec(
                        "content-state", "JSON", "the activity's dynamic content (required for update and start)"),
                    OptionSpec("activity-type", "NAME", "start: the ActivityAttributes type's name"),
                    OptionSpec("attributes", "JSON", "start: the activity's static attributes"),
                    OptionSpec("stale-date", "SECONDS", "seconds since 1970 after which the content shows as stale"),
                    OptionSpec("dismissal-date", "SECONDS", "end: seconds since 1970 when the ended activity goes"),
                    OptionSpec(
                        "channel", "NAME",
                        "start: the project's broadcast channel the started activity follows (iOS 18; "
                            + "tern live-activity-channels)"),
                    OptionSpec(
                        "relevance-score", "N",
                        "0 to 100: which of the app's activities shows first; without --live-activity, 0 to 1: "
                            + "where the notification summary ranks it"),
                ]
            ),
            (
                "Audience (one)",
                [
                    OptionSpec("profile", "ID", "one profile's push subscriptions"),
                    OptionSpec("profiles", "ID,ID,…", "several profiles'"),
                    OptionSpec("token", "TOKEN", "one device"),
                    OptionSpec(
                        "provider", "PROVIDER", "with --token: its provider (default \(PushProvider.apns.rawValue))"),
                    OptionSpec("resource", "ID", "every push subscription of the resource"),
                    OptionSpec("to-topic", "NAME", "the push subscriptions of the topic's followers"),
                    OptionSpec(
                        "test",
                        "a test send: only the project's test devices (in the audience's resource), refused if none"),
                    OptionSpec("segment", "ID", "a saved segment (tern segments list); refused when it matches no one"),
                    OptionSpec(
                        "activity", "ID",
                        "with --live-activity update or end: the devices that registered a token for the activity"),
                ]
            ),
            (
                "Filters (with any audience)",
                [
                    OptionSpec("in-resource", "ID", "only subscriptions of this resource"),
                    OptionSpec("with-category", "NAME", repeatable: true, "the category must be on"),
                    OptionSpec("field", "NAME=VALUE", repeatable: true, "a subscription custom field equals VALUE"),
                    OptionSpec("tag", "KEY[=VALUE]", repeatable: true, "the tag is set (to VALUE)"),
                    OptionSpec(
                        "where", "FILTER",
                        "with --resource: 'session_count >= 3 and app_version >= 2.0' (see tern help, segments)"),
                    OptionSpec("filter", "JSON", "with --resource: the filter as the API's JSON"),
                ]
            ),
            (
                "Output",
                [
                    OptionSpec("no-wait", "print the message id and return"),
                    OptionSpec("json", "print the final statistics as JSON"),
                    OptionSpec("interval", "SECONDS", "how often progress is read (0.5)"),
                    OptionSpec("help", "this text"),
                ]
            ),
            ("Connection", OptionSpec.connection),
        ],
        maxPositionals: 0,
        footer: "Exit status: 0 sent, 1 the server refused it, 2 a mistake in the options, 4 no server answered.")

    /// The options of a message's content: what a template keeps too (`tern template`).
    static let contentOptions: [OptionSpec] = [
        OptionSpec("title", "T", "the alert's title (an alert needs a title or a body)"),
        OptionSpec("subtitle", "S", "the alert's subtitle"),
        OptionSpec("body", "B", "the alert's text"),
        OptionSpec("media", "URL", "https image, GIF, audio or video for the extension"),
        OptionSpec(
            "button", "ID:TITLE:ACTION[:URL]", repeatable: true,
            "up to 3; ACTION is open, url (with URL) or dismiss"),
        OptionSpec("click-url", "URL", "opened when the notification is tapped"),
        OptionSpec("category", "NAME", "the resource's category; devices that turned it off are skipped"),
        OptionSpec("badge", "N", "the app icon's badge"),
        OptionSpec("sound", "NAME", "the sound"),
        OptionSpec("thread-id", "ID", "groups notifications"),
        OptionSpec("custom", "JSON", "custom data (a JSON object), top-level keys of the payload"),
        OptionSpec(
            "localizations", "JSON",
            "the texts (title, subtitle, body) and click_url and media_url in other languages: "
                + "'{\"es\": {\"title\": \"Rebajas\"}}'; each device gets its own language's"),
        OptionSpec(
            "custom-field", "KEY=VALUE", repeatable: true, "one custom key (VALUE as JSON, else a string)"),
        OptionSpec(
            "interruption-level", "LEVEL",
            "passive, active, time-sensitive (through Focus) or critical (through mute; Apple's entitlement)"
        ),
        OptionSpec("target-content-id", "ID", "the app window (scene) that opening it brings forward"),
        OptionSpec("title-loc-key", "KEY", "the title as a key of the app's Localizable.strings"),
        OptionSpec("title-loc-arg", "VALUE", repeatable: true, "a value the title key's format fills in"),
        OptionSpec("subtitle-loc-key", "KEY", "the subtitle as a key of the app's strings"),
        OptionSpec(
            "subtitle-loc-arg", "VALUE", repeatable: true, "a value the subtitle key's format fills in"),
        OptionSpec("body-loc-key", "KEY", "the body as a key of the app's strings"),
        OptionSpec("body-loc-arg", "VALUE", repeatable: true, "a value the body key's format fills in"),
        OptionSpec("filter-criteria", "VALUE", "the app's Focus filter value that lets it through"),
        OptionSpec(
            "ios-category", "ID",
            "aps.category: a notification category the app registered (not with --button)"),
    ]

    static let templateOption = OptionSpec(
        "template", "ID", "a saved template (tern template list): its content fills what the options here leave out")

    let arguments: Arguments
    let message: MessageRequest
    let wait: Bool
    let json: Bool
    let interval: Double

    init(_ arguments: [String]) throws(CommandError) {
        let arguments = try Self.spec.parse(arguments)
        self.arguments = arguments
        wait = !arguments.has("no-wait")
        json = arguments.has("json")
        interval = try arguments.double("interval", default: 0.5)
        guard interval > 0, interval <= 60 else {
            throw CommandError("--interval must be seconds between 0 and 60, not \(arguments.value("interval") ?? "")")
        }
        message = try Self.message(arguments)
    }

    static func message(_ arguments: Arguments) throws(CommandError) -> MessageRequest {
        var message = MessageRequest(audience: try audience(arguments))
        try content(arguments, into: &message)
        message.templateId = try arguments.int("template").map(Int64.init)
        if arguments.has("inbox") { message.inbox = true }
        message.collapseId = arguments.value("collapse-id")
        message.pushType = arguments.value("push-type")
        message.topic = arguments.value("topic")
        message.environment = arguments.value("environment")
        if arguments.has("test") { message.test = true }
        message.priority = try arguments.int("priority")
        message.timeToLive = try arguments.int("ttl")
        message.sendAt = try arguments.value("at").map(sendTime)
        message.throttlePerMinute = try arguments.int("throttle")
        message.localTimeOfDay = arguments.value("local-time")
        if arguments.has("ignore-cap") { message.ignoreFrequencyCap = true }
        if arguments.has("usual-open-time") { message.atUsualOpenTime = true }
        if let quiet = arguments.value("quiet-hours") {
            let ends = quiet.split(separator: "-", omittingEmptySubsequences: false).map(String.init)
            guard ends.count == 2 else {
                throw CommandError("--quiet-hours must be two times of day, like 22:00-08:00, not \(quiet)")
            }
            message.quietHours = MessageRequest.QuietHours(from: ends[0], to: ends[1])
        }
        message.projectId = try arguments.int("project").map(Int64.init)
        if arguments.has("no-track-delivery") { message.trackDelivery = false }
        if arguments.has("no-track-open") { message.trackOpen = false }
        let variants = try arguments.all("variant").map(variant)
        if !variants.isEmpty { message.variants = variants }
        message.testAudiencePercent = try arguments.int("test-percent")
        message.winnerAfterMinutes = try arguments.int("winner-after")
        message.winnerBy = arguments.value("winner-by")
        message.winnerGoal = arguments.value("winner-goal")
        message.controlPercent = try arguments.int("control-percent")
        message.conversionGoal = arguments.value("conversion-goal")
        message.conversionWindowHours = try arguments.int("conversion-window-hours")
        message.liveActivity = try liveActivity(arguments)
        if message.liveActivity == nil { message.relevanceScore = try relevanceScore(arguments) }
        message.trigger = try trigger(arguments)
        message.recurrence = try recurrence(arguments)
        return message
    }

    /// The content options (``contentOptions``) into `message`'s fields; the relevance score only
    /// without a Live Activity, whose own it is then.
    static func content(_ arguments: Arguments, into message: inout MessageRequest) throws(CommandError) {
        message.title = arguments.value("title")
        message.subtitle = arguments.value("subtitle")
        message.body = arguments.value("body")
        message.mediaURL = arguments.value("media")
        message.clickURL = arguments.value("click-url")
        message.category = arguments.value("category")
        message.sound = arguments.value("sound")
        message.threadId = arguments.value("thread-id")
        message.iosCategory = arguments.value("ios-category")
        message.badge = try arguments.int("badge")
        let buttons = try arguments.all("button").map(button)
        if !buttons.isEmpty { message.buttons = buttons }
        var custom: [String: JSONValue] = [:]
        if let text = arguments.value("localizations") {
            do {
                message.localizations = try JSONDecoder().decode(
                    [String: MessageLocalization].self, from: Data(text.utf8))
            } catch {
                throw CommandError(
                    "--localizations must be a JSON object of languages, like '{\"es\": {\"title\": \"Rebajas\", "
                        + "\"body\": \"30 % hoy\"}}'")
            }
        }
        if let text = arguments.value("custom") {
            guard case .object(let object) = try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)) else {
                throw CommandError("--custom must be a JSON object, like '{\"order_id\": \"A-1\"}'")
            }
            custom = object
        }
        for pair in arguments.all("custom-field") {
            let (key, value) = try Arguments.keyValue(pair, "custom-field")
            custom[key] = jsonValue(value)
        }
        if !custom.isEmpty { message.data = custom }
        message.interruptionLevel = arguments.value("interruption-level")
        message.targetContentId = arguments.value("target-content-id")
        message.filterCriteria = arguments.value("filter-criteria")
        message.titleLocKey = arguments.value("title-loc-key")
        message.subtitleLocKey = arguments.value("subtitle-loc-key")
        message.bodyLocKey = arguments.value("body-loc-key")
        for (name, keyPath) in [
            ("title-loc-arg", \MessageRequest.titleLocArgs), ("subtitle-loc-arg", \MessageRequest.subtitleLocArgs),
            ("body-loc-arg", \MessageRequest.bodyLocArgs),
        ] {
            let values = arguments.all(name)
            if !values.isEmpty { message[keyPath: keyPath] = values }
        }
    }

    /// `--repeat-every-days N` or `--repeat-weekdays mon,thu`, with `--repeat-until`.
    static func recurrence(_ arguments: Arguments) throws(CommandError) -> MessageRecurrence? {
        let until = try arguments.value("repeat-until").map(sendTime)
        switch (try arguments.int("repeat-every-days"), arguments.value("repeat-weekdays")) {
        case (let days?, nil):
            return MessageRecurrence(everyDays: days, until: until)
        case (nil, let list?):
            let days = try list.split(separator: ",", omittingEmptySubsequences: false).map {
                name throws(CommandError) in
                let name = name.trimmingCharacters(in: .whitespaces)
                guard let day = MessageRecurrence.Weekday(rawValue: name) else {
                    throw CommandError(
                        "--repeat-weekdays takes days of the week, mon to sun, separated by commas (mon,thu), not "
                            + "\(name.prefix(16))")
                }
                return day
            }
            return MessageRecurrence(weekdays: days, until: until)
        case (_?, _?):
            throw CommandError("--repeat-every-days and --repeat-weekdays do not go together: pick one rhythm")
        case (nil, nil):
            if until != nil { throw CommandError("--repeat-until goes with --repeat-every-days or --repeat-weekdays") }
            return nil
        }
    }

    /// `--variant`: a version as the API's JSON.
    static func variant(_ text: String) throws(CommandError) -> MessageRequest.Variant {
        let keys = MessageRequest.Variant.fields
        do {
            // A misspelt field would otherwise be left out without a word.
            if case .object(let object) = try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)),
                let unknown = object.keys.sorted().first(where: { !keys.contains($0) })
            {
                throw CommandError(
                    "--variant has \(unknown), which is not a field of a version: \(keys.joined(separator: ", "))")
            }
            return try JSONDecoder().decode(MessageRequest.Variant.self, from: Data(text.utf8))
        } catch let error as CommandError {
            throw error
        } catch {
            throw CommandError(
                "--variant must be a JSON object of percent, title, subtitle, body, media_url, click_url, buttons or "
                    + "data, like '{\"title\": \"B\", \"percent\": 30}', not \(text)")
        }
    }

    static func audience(_ arguments: Arguments) throws(CommandError) -> MessageAudience {
        let kinds = ["profile", "profiles", "token", "resource", "to-topic", "segment", "activity"].filter(
            arguments.has)
        guard kinds.count == 1 else {
            throw CommandError(
                kinds.isEmpty
                    ? "say who gets it: --profile, --profiles, --token, --resource, --to-topic, --segment or --activity"
                    : "pick one audience, not \(kinds.map { "--\($0)" }.joined(separator: " and "))")
        }
        let type =
            switch kinds[0] {
            case "to-topic": AudienceType.topic
            case "activity": AudienceType.liveActivity
            default: AudienceType(rawValue: kinds[0]) ?? .resource
            }
        var audience = MessageAudience(type: type)
        switch audience.type {
        case .profile:
            audience.profileId = arguments.value("profile")
        case .profiles:
            audience.profileIds = (arguments.value("profiles") ?? "").split(separator: ",").map(String.init)
        case .token:
            audience.token = arguments.value("token")
            audience.provider = arguments.value("provider") ?? PushProvider.apns.rawValue
        case .resource:
            audience.resourceId = try arguments.int("resource").map(Int64.init)
        case .topic:
            audience.topic = arguments.value("to-topic")
        case .segment:
            audience.segmentId = try arguments.int("segment").map(Int64.init)
        case .liveActivity:
            audience.activityId = arguments.value("activity")
        }
        do {
            audience.filter = try AdminCommand.filter(arguments)
        } catch let error as CommandError {
            throw error
        } catch {
            throw CommandError("\(error)")
        }
        if let resource = try arguments.int("in-resource") { audience.resourceId = Int64(resource) }
        let categories = arguments.all("with-category")
        if !categories.isEmpty { audience.categories = categories }
        var fields: [String: JSONValue] = [:]
        for pair in arguments.all("field") {
            let (key, value) = try Arguments.keyValue(pair, "field")
            fields[key] = jsonValue(value)
        }
        if !fields.isEmpty { audience.fields = fields }
        var tags: [String: String?] = [:]
        for pair in arguments.all("tag") {
            if let equals = pair.firstIndex(of: "=") {
                tags[String(pair[..<equals])] = String(pair[pair.index(after: equals)...])
            } else {
                tags.updateValue(nil, forKey: pair)
            }
        }
        if !tags.isEmpty { audience.tags = tags }
        return audience
    }

    /// `ID:TITLE:ACTION[:URL]`.
    static func button(_ text: String) throws(CommandError) -> MessageRequest.Button {
        let parts = text.split(separator: ":", maxSplits: 3, omittingEmptySubsequences: false).map(String.init)
        guard parts.count >= 3 else {
            throw CommandError("--button \(text) should be ID:TITLE:ACTION[:URL], e.g. shop:Shop now:url:https://…")
        }
        return MessageRequest.Button(
            id: parts[0], title: parts[1], action: parts[2], url: parts.count == 4 ? parts[3] : nil)
    }

    /// VALUE read as JSON when it is JSON, else as a string.
    static func jsonValue(_ text: String) -> JSONValue {
        (try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))) ?? .string(text)
    }

    /// `--at`: an ISO 8601 time with its zone, or milliseconds since 1970.
    static func sendTime(_ text: String) throws(CommandError) -> Int64 {
        if let milliseconds = Int64(text), milliseconds >= 0 { return milliseconds }
        guard let date = try? Date(text, strategy: .iso8601) else {
            throw CommandError(
                "--at must be a time like 2026-12-24T09:00:00Z (with its zone) or ms since 1970, not \(text)")
        }
        return Int64(date.timeIntervalSince1970 * 1000)
    }
}
